import { type FormEvent, useEffect, useState } from "react";
import { isEditConflict } from "../api/client.ts";
import { Button, ErrorBox, Field, FormError, fieldErrors } from "../ui/ui.tsx";
import {
  MAX_ORIGINS,
  MAX_STARTER_PROMPTS,
  normalizeOrigin,
  originProblem,
  slugProblem,
  starterPromptProblem,
} from "./app-rules.ts";
import { type SettingsDraft, toSettingsDraft, toUpdateBody } from "./app-settings.ts";
import { ListEditor } from "./ListEditor.tsx";
import { fetchApp, type TaggedApp, useUpdateApp } from "./queries.ts";
import { slugError, withoutSlugTaken } from "./slug-error.ts";

/** The API's paths this form shows beside their fields; any other 422 detail is listed above them. */
function shownFields(draft: SettingsDraft): string[] {
  return [
    "title",
    "description",
    "slug",
    "theme.color",
    "theme.dark",
    "starter_prompts",
    ...draft.starterPrompts.map((_, index) => `starter_prompts[${index}]`),
    "allowed_origins",
    ...draft.origins.map((_, index) => `allowed_origins[${index}]`),
    "rate_limit.requests",
    "rate_limit.window_seconds",
    "end_user_credit_limit",
  ];
}

/** Title, description, address, theme, starter prompts, allowed origins and limits of an app. */
export function AppSettingsForm({ app }: { app: TaggedApp }) {
  const [draft, setDraft] = useState(() => toSettingsDraft(app));
  const [problem, setProblem] = useState<string | null>(null);
  const [isSaved, setSaved] = useState(false);
  const save = useUpdateApp(app.id);
  // The revision the draft is based on, sent as If-Match so nobody's settings are overwritten unseen.
  const [base, setBase] = useState(() => ({
    etag: app.etag,
    settings: JSON.stringify(toSettingsDraft(app)),
  }));
  const [theirs, setTheirs] = useState<TaggedApp | null>(null);
  // A newer revision whose settings are the ones the draft is based on (the secret was rotated) is
  // safe to base the draft on: nothing of anyone's settings is lost or overwritten.
  useEffect(() => {
    if (!app.etag || app.etag === base.etag) return;
    if (JSON.stringify(toSettingsDraft(app)) === base.settings)
      setBase((current) => ({ ...current, etag: app.etag }));
  }, [app, base.etag, base.settings]);
  const error = fieldErrors(save.error);
  const set = <K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]) => {
    setDraft((current) => ({ ...current, [key]: value }));
    setSaved(false);
  };
  const listError = (list: string) => (index: number) =>
    error?.fieldMessage(index < 0 ? list : `${list}[${index}]`);

  const saveWith = (ifMatch: string | undefined) => {
    const result = toUpdateBody(draft, app.kind);
    if ("problem" in result) return setProblem(result.problem);
    setProblem(null);
    save.mutate(
      { body: result.body, ifMatch },
      {
        onSuccess: (saved) => {
          setDraft(toSettingsDraft(saved));
          setBase({ etag: saved.etag, settings: JSON.stringify(toSettingsDraft(saved)) });
          setTheirs(null);
          setSaved(true);
        },
        onError: (failure) => {
          if (isEditConflict(failure)) void fetchApp(app.id).then(setTheirs);
        },
      },
    );
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    saveWith(base.etag);
  };

  return (
    <form className="card" onSubmit={submit} aria-label="App settings">
      <h2>Settings</h2>
      {theirs ? (
        <div className="confirm-box" role="alert" data-testid="settings-conflict">
          <p>
            Someone else saved this app&apos;s settings after you opened them, so yours were not saved. Your
            changes are still here.
          </p>
          <div className="actions">
            <Button variant="danger" isBusy={save.isPending} onClick={() => saveWith(theirs.etag)}>
              Overwrite with mine
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                setDraft(toSettingsDraft(theirs));
                setBase({ etag: theirs.etag, settings: JSON.stringify(toSettingsDraft(theirs)) });
                setTheirs(null);
                save.reset();
              }}
            >
              Reload theirs
            </Button>
          </div>
        </div>
      ) : null}
      <FormError
        error={isEditConflict(save.error) ? null : withoutSlugTaken(save.error)}
        fields={shownFields(draft)}
      />
      <ErrorBox error={problem} />
      <div className="row">
        <Field label="Title" error={error?.fieldMessage("title")}>
          <input
            name="title"
            value={draft.title}
            required
            maxLength={100}
            onChange={(e) => set("title", e.target.value)}
          />
        </Field>
        <Field
          label="Slug"
          error={(draft.slug !== app.slug ? slugProblem(draft.slug) : null) ?? slugError(save.error)}
          hint="The web app's address: /a/slug. Changing it breaks links and embeds that use the old one."
        >
          <input
            name="slug"
            value={draft.slug}
            required
            maxLength={63}
            onChange={(e) => set("slug", e.target.value)}
          />
        </Field>
      </div>
      <Field label="Description" error={error?.fieldMessage("description")}>
        <textarea
          name="description"
          value={draft.description}
          maxLength={2000}
          onChange={(e) => set("description", e.target.value)}
        />
      </Field>
      <div className="row">
        <Field label="Theme colour" error={error?.fieldMessage("theme.color")}>
          <input
            name="color"
            type="color"
            className="color-input"
            value={draft.color}
            onChange={(e) => set("color", e.target.value)}
          />
        </Field>
        <code className="align-end">{draft.color}</code>
        <label className="checkbox-line align-end">
          <input
            name="dark"
            type="checkbox"
            checked={draft.isDark}
            onChange={(e) => set("isDark", e.target.checked)}
          />
          <span>Dark mode</span>
        </label>
      </div>
      {app.kind === "agent" ? (
        <ListEditor
          label="Starter prompts"
          hint={`Up to ${MAX_STARTER_PROMPTS} questions offered before the first message.`}
          name="starter-prompt"
          items={draft.starterPrompts}
          onChange={(items) => set("starterPrompts", items)}
          draft={draft.promptDraft}
          onDraftChange={(text) => set("promptDraft", text)}
          problem={starterPromptProblem}
          max={MAX_STARTER_PROMPTS}
          errorAt={listError("starter_prompts")}
        />
      ) : null}
      <ListEditor
        label="Allowed origins"
        hint="Sites that may embed the widget or call the app from a browser, as https://host[:port]. None: only this builder's own pages (the web app)."
        name="allowed-origin"
        items={draft.origins}
        onChange={(items) => set("origins", items)}
        draft={draft.originDraft}
        onDraftChange={(text) => set("originDraft", text)}
        normalize={normalizeOrigin}
        problem={originProblem}
        max={MAX_ORIGINS}
        errorAt={listError("allowed_origins")}
      />
      <fieldset className="agent-section" aria-label="Limits per end user">
        <legend className="field-label">Limits per end user</legend>
        <label className="checkbox-line">
          <input
            name="rate-limited"
            type="checkbox"
            checked={draft.isRateLimited}
            onChange={(e) => set("isRateLimited", e.target.checked)}
          />
          <span>Limit how often each end user may ask</span>
        </label>
        {draft.isRateLimited ? (
          <div className="row">
            <Field label="Requests" error={error?.fieldMessage("rate_limit.requests")}>
              <input
                name="requests"
                type="number"
                required
                min={1}
                max={100_000}
                step={1}
                value={draft.requests}
                onChange={(e) => set("requests", e.target.value)}
              />
            </Field>
            <Field label="Per (seconds)" error={error?.fieldMessage("rate_limit.window_seconds")}>
              <input
                name="window-seconds"
                type="number"
                required
                min={1}
                max={86_400}
                step={1}
                value={draft.windowSeconds}
                onChange={(e) => set("windowSeconds", e.target.value)}
              />
            </Field>
          </div>
        ) : null}
        <Field
          label="Daily credit limit per end user"
          error={error?.fieldMessage("end_user_credit_limit")}
          hint="Credits each end user may spend per UTC day. Empty: no limit."
        >
          <input
            name="credit-limit"
            type="number"
            min={1}
            max={100_000_000}
            step={1}
            value={draft.creditLimit}
            onChange={(e) => set("creditLimit", e.target.value)}
          />
        </Field>
      </fieldset>
      <div className="actions">
        <Button type="submit" isBusy={save.isPending}>
          Save settings
        </Button>
        {isSaved ? <span role="status">Saved.</span> : null}
      </div>
    </form>
  );
}
