import { defineErrors } from "@app/http";

export const ScheduleErrors = defineErrors({
  SCHEDULE_NOT_FOUND: { status: 404, message: "No schedule with this id." },
  TOO_MANY_SCHEDULES: {
    status: 409,
    message: "This workflow has as many schedules as it may have (100); delete one first.",
  },
});
