import { defineErrors } from "@app/http";

export const EventErrors = defineErrors({
  EVENT_NOT_FOUND: { status: 404, message: "No event with this id." },
  CURSOR_NOT_FOUND: { status: 404, message: "No event with the id given as cursor." },
});
