import { type FormEvent, useEffect, useState } from "react";
import { ApiError } from "../api/client.ts";
import {
  Button,
  EmptyState,
  ErrorBox,
  Field,
  fieldErrors,
  formatDate,
  Link,
  Loading,
  PageHeader,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { InputFields, type InputValues, isPrimaryInput, toModelInput } from "./InputFields.tsx";
import {
  type Generation,
  isGenerationFinished,
  type Kind,
  useCancelGeneration,
  useDeleteGeneration,
  useGenerate,
  useGenerations,
  useModelInputs,
  useModels,
} from "./queries.ts";

/** Image and video generation: a model, its inputs, and a gallery that fills in as generations finish. */
export function GenerationPage() {
  const [filter, setFilter] = useState<Kind | "all">("all");
  return (
    <>
      <PageHeader title="Generate" />
      <div className="generate-page">
        <GenerateForm />
        <Gallery filter={filter} onFilter={setFilter} />
      </div>
    </>
  );
}

function GenerateForm() {
  const [kind, setKind] = useState<Kind>("image");
  const [search, setSearch] = useState("");
  const query = useDebounced(search.trim(), 350);
  const models = useModels(kind, query);
  const [model, setModel] = useState("");
  const [values, setValues] = useState<InputValues>({});
  const [formError, setFormError] = useState<string | null>(null);
  const inputs = useModelInputs(model);
  const generate = useGenerate();
  const apiError = fieldErrors(generate.error);
  // Without a Replicate token the model list cannot load: that is a setup step, not an error.
  const needsToken = [models.error, inputs.error, generate.error].some(
    (error) => error instanceof ApiError && error.code === "replicate_not_configured",
  );

  // Pick the first model of a new list unless the chosen one is still on it.
  useEffect(() => {
    const list = models.data?.data ?? [];
    if (list.length > 0 && !list.some((candidate) => candidate.id === model)) setModel(list[0]?.id ?? "");
  }, [models.data, model]);

  const fields = inputs.data?.inputs ?? null;
  const promptOnly = [
    {
      name: "prompt",
      type: "string" as const,
      title: "Prompt",
      description: "",
      format: null,
      default: null,
      enum: null,
      minimum: null,
      maximum: null,
      is_required: true,
    },
  ];
  const shown = fields ?? promptOnly;
  const primary = shown.filter(isPrimaryInput);
  const more = shown.filter((input) => !isPrimaryInput(input));
  const chosen = models.data?.data.find((candidate) => candidate.id === model);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    let input: Record<string, unknown>;
    try {
      input = toModelInput(shown, values);
    } catch (error) {
      setFormError(error instanceof Error ? error.message : String(error));
      return;
    }
    generate.mutate({ kind, model, input });
  };

  return (
    <form className="card generate-form" onSubmit={submit} aria-label="New generation">
      <h2>New generation</h2>
      <fieldset className="segmented">
        <legend className="field-label">Kind</legend>
        {(["image", "video"] as const).map((option) => (
          <label key={option} className={kind === option ? "is-checked" : undefined}>
            <input
              type="radio"
              name="kind"
              value={option}
              checked={kind === option}
              onChange={() => {
                setKind(option);
                setModel("");
                setValues({});
                generate.reset();
              }}
            />
            {option === "image" ? "Image" : "Video"}
          </label>
        ))}
      </fieldset>
      <Field label="Find a model" hint="Replicate's collection, or its search when you type.">
        <input type="search" name="model-search" value={search} onChange={(e) => setSearch(e.target.value)} />
      </Field>
      <Field
        label="Model"
        error={apiError?.fieldMessage("model")}
        {...(models.data?.source === "curated"
          ? {
              hint: "A built-in list: Replicate is not configured (add a Replicate credential in Settings) or not reachable.",
            }
          : chosen?.description
            ? { hint: chosen.description }
            : {})}
      >
        <select
          name="model"
          value={model}
          onChange={(e) => {
            setModel(e.target.value);
            setValues({});
            generate.reset();
          }}
          required
          disabled={!models.data || models.data.data.length === 0}
        >
          {models.data?.data.length === 0 ? <option value="">No model matches</option> : null}
          {models.data?.data.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.id}
            </option>
          ))}
        </select>
      </Field>
      {models.isPending && models.fetchStatus !== "idle" ? <Loading what="models" /> : null}
      {needsToken ? null : <QueryError query={models} />}
      {inputs.isFetching && !inputs.data ? <Loading what="the model's inputs" /> : null}
      {needsToken ? null : <QueryError query={inputs} />}
      <InputFields
        inputs={primary}
        values={values}
        onChange={(name, value) => setValues((current) => ({ ...current, [name]: value }))}
        error={apiError}
      />
      {more.length > 0 ? (
        <details
          className="more-inputs"
          open={more.some((input) => apiError?.fieldMessage(`input.${input.name}`))}
        >
          <summary>More inputs ({more.length})</summary>
          <InputFields
            inputs={more}
            values={values}
            onChange={(name, value) => setValues((current) => ({ ...current, [name]: value }))}
            error={apiError}
          />
        </details>
      ) : null}
      {formError ? <ErrorBox error={formError} /> : null}
      {needsToken ? null : <ErrorBox error={generate.error} />}
      {needsToken ? (
        <p className="setup-note" data-testid="replicate-setup">
          Image and video generation runs on Replicate and needs an API token. Add your Replicate API token in{" "}
          <Link to="/settings#credentials">Settings → Provider credentials</Link> (kind “Replicate”), or ask
          whoever runs the server to set REPLICATE_API_TOKEN.
        </p>
      ) : null}
      <Guarded>
        <Button type="submit" isBusy={generate.isPending} disabled={!model}>
          Generate {kind}
        </Button>
      </Guarded>
    </form>
  );
}

function Gallery({ filter, onFilter }: { filter: Kind | "all"; onFilter: (filter: Kind | "all") => void }) {
  const generations = useGenerations(filter);
  const cancel = useCancelGeneration();
  const remove = useDeleteGeneration();
  const all = generations.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <section aria-labelledby="gallery-title" className="gallery-section">
      <div className="gallery-header">
        <h2 id="gallery-title">Gallery</h2>
        <label className="inline">
          Show
          <select value={filter} onChange={(e) => onFilter(e.target.value as Kind | "all")}>
            <option value="all">Everything</option>
            <option value="image">Images</option>
            <option value="video">Videos</option>
          </select>
        </label>
      </div>
      <QueryError query={generations} />
      <ErrorBox error={cancel.error ?? remove.error} />
      {generations.isPending ? <Loading what="generations" /> : null}
      {generations.data && all.length === 0 ? (
        <EmptyState title="Nothing generated yet">
          <p>Pick a model, describe what you want, and it appears here when it is done.</p>
        </EmptyState>
      ) : null}
      <ul className="gallery" aria-label="Generations">
        {all.map((generation) => (
          <GenerationCard
            key={generation.id}
            generation={generation}
            onCancel={() => cancel.mutate(generation.id)}
            onDelete={() => {
              if (confirm("Delete this generation and its files?")) remove.mutate(generation.id);
            }}
          />
        ))}
      </ul>
      {generations.hasNextPage ? (
        <Button
          variant="secondary"
          isBusy={generations.isFetchingNextPage}
          onClick={() => generations.fetchNextPage()}
        >
          Show older
        </Button>
      ) : null}
    </section>
  );
}

const STATUS_TONE = {
  starting: "busy",
  processing: "busy",
  succeeded: "ok",
  failed: "danger",
  canceled: "neutral",
} as const;

function GenerationCard({
  generation,
  onCancel,
  onDelete,
}: {
  generation: Generation;
  onCancel: () => void;
  onDelete: () => void;
}) {
  const prompt = typeof generation.input.prompt === "string" ? generation.input.prompt : "";
  const isFinished = isGenerationFinished(generation);
  return (
    <li className="card generation" data-testid="generation" data-status={generation.status}>
      <div className="generation-media">
        {generation.status === "succeeded"
          ? generation.outputs.map((output, index) => {
              const src = `/api/files/${output.file_id}`;
              const label = `${prompt || generation.model} (${index + 1} of ${generation.outputs.length})`;
              return output.content_type.startsWith("video/") ? (
                // biome-ignore lint/a11y/useMediaCaption: generated videos have no speech to caption
                <video
                  key={output.file_id}
                  src={src}
                  controls
                  preload="metadata"
                  playsInline
                  aria-label={label}
                />
              ) : (
                <a key={output.file_id} href={src} target="_blank" rel="noreferrer">
                  <img src={src} alt={label} loading="lazy" />
                </a>
              );
            })
          : null}
        {!isFinished ? (
          <div className="generation-placeholder" role="status">
            <StatusBadge tone="busy">
              {generation.status === "starting" ? "Starting" : "Processing"}
            </StatusBadge>
          </div>
        ) : null}
        {generation.status === "failed" || generation.status === "canceled" ? (
          <div className="generation-placeholder">
            <p className={generation.status === "failed" ? "field-error" : "muted"}>
              {generation.error ?? (generation.status === "canceled" ? "Canceled." : "Failed.")}
            </p>
          </div>
        ) : null}
      </div>
      <div className="generation-info">
        <p className="generation-prompt" title={prompt}>
          {prompt || <span className="muted">No prompt</span>}
        </p>
        <div className="muted generation-meta">
          <div>
            <StatusBadge tone={STATUS_TONE[generation.status]}>{generation.status}</StatusBadge>
            {generation.metrics.predict_time !== undefined
              ? ` ${generation.metrics.predict_time.toFixed(1)} s of model time`
              : ""}
          </div>
          <div className="generation-model">{generation.model}</div>
          <div>{formatDate(generation.created_at)}</div>
        </div>
        <div className="actions">
          {!isFinished ? (
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          ) : null}
          <Button
            variant="danger"
            onClick={onDelete}
            aria-label={`Delete generation ${prompt || generation.id}`}
          >
            Delete
          </Button>
        </div>
      </div>
    </li>
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
