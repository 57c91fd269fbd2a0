import { type FormEvent, useState } from "react";
import { useProviders } from "../agents/queries.ts";
import { navigate } from "../router.ts";
import {
  Button,
  EmptyState,
  Field,
  FormError,
  fieldErrors,
  Link,
  Loading,
  LoadMore,
  NoMatches,
  PageHeader,
  QueryError,
  useListSearch,
} from "../ui/ui.tsx";
import { useCreateKnowledgeBase, useKnowledgeBaseList } from "./queries.ts";

const LOCAL = { provider: "local", model: "feature-hashing-v1" };
/** The providers whose embedding models the builder can call (`local` is the built-in embedder). */
const EMBEDDING_PROVIDERS = ["local", "openai", "google", "mistral", "cohere", "openai-compatible"];

/** The caller's knowledge bases, and the form that creates one. */
export function KnowledgePage() {
  const search = useListSearch("knowledge bases");
  const bases = useKnowledgeBaseList(search.q);
  const [isCreating, setCreating] = useState(false);
  const isEmpty = bases.data?.length === 0;
  return (
    <>
      <PageHeader
        title="Knowledge bases"
        actions={isCreating ? null : <Button onClick={() => setCreating(true)}>New knowledge base</Button>}
      />
      {isCreating ? <CreateKnowledgeBase onCancel={() => setCreating(false)} /> : null}
      {search.box}
      <QueryError query={bases} />
      {bases.isPending ? <Loading what="knowledge bases" /> : null}
      {search.q && isEmpty ? <NoMatches what="knowledge bases" q={search.q} /> : null}
      {!search.q && isEmpty && !isCreating ? (
        <EmptyState title="No knowledge bases yet">
          <p>
            Upload documents into a knowledge base; agents and workflows then answer from them with cited
            passages.
          </p>
          <Button onClick={() => setCreating(true)}>Create your first knowledge base</Button>
        </EmptyState>
      ) : null}
      <div className="list">
        {bases.data?.map((base) => (
          <div className="card list-item" key={base.id}>
            <div>
              <Link to={`/knowledge/${base.id}`}>
                <strong>{base.name}</strong>
              </Link>
              {base.description ? <div className="muted">{base.description}</div> : null}
            </div>
            <span className="badge">
              {base.embedding.provider} · {base.embedding.model}
            </span>
          </div>
        ))}
      </div>
      <LoadMore query={bases} what="knowledge bases" />
    </>
  );
}

function CreateKnowledgeBase({ onCancel }: { onCancel: () => void }) {
  const create = useCreateKnowledgeBase();
  const providers = useProviders();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [embedding, setEmbedding] = useState(LOCAL);
  const error = fieldErrors(create.error);

  const modelsOf = (provider: string) =>
    providers.data?.data
      .find((candidate) => candidate.id === provider)
      ?.models.filter((model) => model.capabilities.includes("embeddings"))
      .map((model) => model.id) ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name, description, embedding },
      { onSuccess: (created) => navigate(`/knowledge/${created.id}`) },
    );
  };

  return (
    <form className="card form-card" onSubmit={submit} aria-label="New knowledge base">
      <h2>New knowledge base</h2>
      <FormError
        error={create.error}
        fields={["name", "description", "embedding.provider", "embedding.model"]}
      />
      <Field label="Name" error={error?.fieldMessage("name")}>
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </Field>
      <Field label="Description" error={error?.fieldMessage("description")}>
        <input
          name="description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={2000}
        />
      </Field>
      <div className="row">
        <Field
          label="Embedding provider"
          error={error?.fieldMessage("embedding.provider")}
          hint={
            embedding.provider === "local"
              ? "Built in and offline: matches wording, not meaning."
              : "Uses your credential for this provider (Settings) or the server's key."
          }
        >
          <select
            name="embedding-provider"
            value={embedding.provider}
            onChange={(e) => {
              const provider = e.target.value;
              setEmbedding({
                provider,
                model: provider === "local" ? LOCAL.model : (modelsOf(provider)[0] ?? ""),
              });
            }}
          >
            {EMBEDDING_PROVIDERS.map((provider) => (
              <option key={provider} value={provider}>
                {provider === "local"
                  ? "Local (built in)"
                  : (providers.data?.data.find((candidate) => candidate.id === provider)?.name ?? provider)}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Embedding model" error={error?.fieldMessage("embedding.model")}>
          <input
            name="embedding-model"
            list="embedding-models"
            value={embedding.model}
            onChange={(e) => setEmbedding({ ...embedding, model: e.target.value })}
            readOnly={embedding.provider === "local"}
            required
          />
        </Field>
        <datalist id="embedding-models">
          {modelsOf(embedding.provider).map((model) => (
            <option key={model} value={model} />
          ))}
        </datalist>
      </div>
      <div className="actions">
        <Button type="submit" isBusy={create.isPending}>
          Create knowledge base
        </Button>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
