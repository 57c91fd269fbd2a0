/** The cron picker's presets; "custom" leaves the expression as typed. */
export const SCHEDULE_PRESETS = [
  { id: "every-minute", label: "Every minute" },
  { id: "hourly", label: "Hourly" },
  { id: "daily", label: "Daily at…" },
  { id: "weekdays", label: "Weekdays at…" },
  { id: "custom", label: "Custom cron" },
] as const;

export type SchedulePreset = (typeof SCHEDULE_PRESETS)[number]["id"];

/**
 * The cron expression of a preset; `time` ("HH:MM") is the hour of the daily and weekday ones.
 *
 * @example presetCron("weekdays", "09:30") // "30 9 * * 1-5"
 */
export function presetCron(preset: Exclude<SchedulePreset, "custom">, time: string): string {
  const [hour = 9, minute = 0] = time.split(":").map((part) => Number.parseInt(part, 10));
  if (preset === "every-minute") return "* * * * *";
  if (preset === "hourly") return "0 * * * *";
  if (preset === "daily") return `${minute} ${hour} * * *`;
  return `${minute} ${hour} * * 1-5`;
}

/**
 * Which preset an expression is, so the picker shows an existing schedule's choice (and its time).
 *
 * @example presetOf("30 9 * * 1-5") // { preset: "weekdays", time: "09:30" }
 */
export function presetOf(cron: string): { preset: SchedulePreset; time: string } {
  const fields = cron.trim().split(/\s+/);
  if (cron.trim() === "* * * * *") return { preset: "every-minute", time: "09:00" };
  if (cron.trim() === "0 * * * *") return { preset: "hourly", time: "09:00" };
  const [minute = "", hour = "", day, month, weekday] = fields;
  const isClock = fields.length === 5 && /^\d{1,2}$/.test(minute) && /^\d{1,2}$/.test(hour);
  if (isClock && day === "*" && month === "*") {
    const time = `${hour.padStart(2, "0")}:${minute.padStart(2, "0")}`;
    if (weekday === "*") return { preset: "daily", time };
    if (weekday === "1-5") return { preset: "weekdays", time };
  }
  return { preset: "custom", time: "09:00" };
}

/** The browser's own time zone, the new schedule's default. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The time zones the browser knows, for the zone field's suggestions. */
export function knownTimeZones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  return supported ? supported("timeZone") : ["UTC"];
}
