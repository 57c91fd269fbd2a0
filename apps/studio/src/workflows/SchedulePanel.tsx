import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import {
  Button,
  ErrorBox,
  Field,
  FormError,
  fieldErrors,
  Loading,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { RUN_TONE } from "./NodeRunInspector.tsx";
import {
  browserTimeZone,
  knownTimeZones,
  presetCron,
  presetOf,
  SCHEDULE_PRESETS,
  type SchedulePreset,
} from "./schedule-presets.ts";
import {
  type Schedule,
  useCreateSchedule,
  useDeleteSchedule,
  useSchedules,
  useUpdateSchedule,
} from "./schedule-queries.ts";

const OVERLAPS = [
  { id: "skip", label: "Skip the tick" },
  { id: "queue", label: "Queue it until the run ends" },
  { id: "allow", label: "Run alongside" },
] as const;

const CATCH_UPS = [
  { id: "latest", label: "Run once for the latest" },
  { id: "none", label: "Skip them" },
  { id: "all", label: "Run each (up to 100)" },
] as const;

/** Fields of the form that show the API's 422 messages beside them. */
const FORM_FIELDS = ["cron", "timezone", "inputs"];

/**
 * The workflow's schedules: each with its next five ticks, its last run, pause and delete; and a form
 * with cron presets and the time zone (the browser's by default) to add one.
 */
export function SchedulePanel({ workflowId }: { workflowId: string }) {
  const schedules = useSchedules(workflowId);
  const client = useQueryClient();
  const lastRunIds = (schedules.data?.data ?? []).map((schedule) => schedule.last_run?.id ?? "").join();
  // A schedule's new run belongs in the run panel's recent runs too.
  useEffect(() => {
    if (lastRunIds) void client.invalidateQueries({ queryKey: ["runs", workflowId] });
  }, [lastRunIds, client, workflowId]);

  return (
    <section className="schedule-panel card" aria-label="Schedules">
      <h2>Schedules</h2>
      <QueryError query={schedules} />
      {schedules.isPending ? <Loading what="schedules" /> : null}
      {schedules.data?.data.length === 0 ? (
        <p className="muted">This workflow runs only when asked.</p>
      ) : null}
      <ul className="schedule-list">
        {schedules.data?.data.map((schedule) => (
          <li key={schedule.id}>
            <ScheduleItem workflowId={workflowId} schedule={schedule} />
          </li>
        ))}
      </ul>
      <NewSchedule workflowId={workflowId} />
    </section>
  );
}

function ScheduleItem({ workflowId, schedule }: { workflowId: string; schedule: Schedule }) {
  const update = useUpdateSchedule(workflowId);
  const remove = useDeleteSchedule(workflowId);
  return (
    <div className="schedule-item" data-testid="schedule" data-enabled={schedule.enabled}>
      <div className="node-run-header">
        <code>{schedule.cron}</code>
        <span className="muted">{schedule.timezone}</span>
        {schedule.enabled ? null : <StatusBadge tone="neutral">paused</StatusBadge>}
      </div>
      <p className="muted">
        Last run:{" "}
        {schedule.last_run ? (
          <span data-testid="schedule-last-run" data-status={schedule.last_run.status}>
            <StatusBadge tone={RUN_TONE[schedule.last_run.status] ?? "neutral"}>
              {schedule.last_run.status}
            </StatusBadge>{" "}
            {schedule.last_run.scheduled_for
              ? new Date(schedule.last_run.scheduled_for).toLocaleString()
              : ""}
          </span>
        ) : (
          "none yet"
        )}
        {schedule.skipped_ticks > 0 ? ` · ${schedule.skipped_ticks} skipped while a run was going` : ""}
        {schedule.queued_ticks > 0 ? ` · ${schedule.queued_ticks} queued` : ""}
      </p>
      {schedule.next_runs.length > 0 ? (
        <>
          <h3>Next runs</h3>
          <ol className="schedule-next" aria-label={`Next runs of ${schedule.cron}`}>
            {schedule.next_runs.map((tick) => (
              <li key={tick}>
                <time dateTime={tick}>{tick.replace("T", " ")}</time>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <div className="schedule-actions">
        <Button
          variant="secondary"
          isBusy={update.isPending}
          onClick={() => update.mutate({ id: schedule.id, enabled: !schedule.enabled })}
        >
          {schedule.enabled ? "Pause" : "Resume"}
        </Button>
        <Button variant="danger" isBusy={remove.isPending} onClick={() => remove.mutate(schedule.id)}>
          Delete schedule
        </Button>
      </div>
      <ErrorBox error={update.error ?? remove.error} />
    </div>
  );
}

function NewSchedule({ workflowId }: { workflowId: string }) {
  const create = useCreateSchedule(workflowId);
  const [preset, setPreset] = useState<SchedulePreset>("daily");
  const [time, setTime] = useState("09:00");
  const [cron, setCron] = useState(() => presetCron("daily", "09:00"));
  const [timezone, setTimezone] = useState(browserTimeZone);
  const [overlap, setOverlap] = useState<Schedule["overlap"]>("skip");
  const [catchUp, setCatchUp] = useState<Schedule["catch_up"]>("latest");
  const [inputs, setInputs] = useState("{}");
  const [inputsError, setInputsError] = useState<string | undefined>();
  const zones = useId();
  const errors = fieldErrors(create.error);
  const errorOf = (field: string) =>
    errors?.details.find((detail) => detail.path === field || detail.path.startsWith(`${field}.`))?.message;

  const choose = (next: SchedulePreset, at = time) => {
    setPreset(next);
    if (next !== "custom") setCron(presetCron(next, at));
  };

  const submit = () => {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(inputs || "{}") as Record<string, unknown>;
      setInputsError(undefined);
    } catch {
      setInputsError("Inputs must be a JSON object, such as {}");
      return;
    }
    create.mutate({ cron, timezone, inputs: parsed, overlap, catch_up: catchUp, enabled: true });
  };

  return (
    <form
      className="schedule-form"
      aria-label="New schedule"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <h3>Add a schedule</h3>
      <Field label="Runs">
        <select aria-label="Runs" value={preset} onChange={(e) => choose(e.target.value as SchedulePreset)}>
          {SCHEDULE_PRESETS.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      </Field>
      {preset === "daily" || preset === "weekdays" ? (
        <Field label="At">
          <input
            type="time"
            value={time}
            onChange={(e) => {
              setTime(e.target.value);
              choose(preset, e.target.value);
            }}
          />
        </Field>
      ) : null}
      <Field
        label="Cron"
        error={errorOf("cron")}
        hint="Five fields (minute hour day month weekday), or six with seconds first"
      >
        <input
          value={cron}
          spellCheck={false}
          onChange={(e) => {
            setCron(e.target.value);
            setPreset(presetOf(e.target.value).preset);
          }}
        />
      </Field>
      <Field label="Time zone" error={errorOf("timezone")}>
        <input value={timezone} list={zones} onChange={(e) => setTimezone(e.target.value)} />
      </Field>
      <datalist id={zones}>
        {knownTimeZones().map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      <Field label="Inputs (JSON)" error={inputsError ?? errorOf("inputs")}>
        <textarea rows={2} value={inputs} spellCheck={false} onChange={(e) => setInputs(e.target.value)} />
      </Field>
      <Field label="While the previous run is still going">
        <select
          aria-label="While the previous run is still going"
          value={overlap}
          onChange={(e) => setOverlap(e.target.value as Schedule["overlap"])}
        >
          {OVERLAPS.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Ticks missed while the server was down">
        <select
          aria-label="Ticks missed while the server was down"
          value={catchUp}
          onChange={(e) => setCatchUp(e.target.value as Schedule["catch_up"])}
        >
          {CATCH_UPS.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      </Field>
      <FormError error={create.error} fields={FORM_FIELDS} />
      <Guarded>
        <Button type="submit" isBusy={create.isPending}>
          Add schedule
        </Button>
      </Guarded>
    </form>
  );
}
