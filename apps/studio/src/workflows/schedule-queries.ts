import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api } from "../api/client.ts";
import type { CreateScheduleRequest, Schedule, UpdateScheduleRequest } from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";

export type { Schedule } from "../api/schema.gen.ts";

/** How often an open editor reads its schedules again: their next ticks and last run move on. */
const SCHEDULE_POLL_MS = 3_000;

/** A workflow's schedules (a workflow has at most 100: read whole). */
export function useSchedules(workflowId: string) {
  return useQuery({
    queryKey: ["schedules", workflowId],
    queryFn: () => allPages<Schedule>(`/api/workflows/${workflowId}/schedules`),
    refetchInterval: (query) =>
      query.state.data?.data.some((schedule) => schedule.enabled) ? SCHEDULE_POLL_MS : false,
  });
}

export function useCreateSchedule(workflowId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateScheduleRequest) =>
      api<Schedule>(`/api/workflows/${workflowId}/schedules`, { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["schedules", workflowId] }),
  });
}

export function useUpdateSchedule(workflowId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...change }: UpdateScheduleRequest & { id: string }) =>
      api<Schedule>(`/api/schedules/${id}`, { method: "PATCH", json: change }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["schedules", workflowId] }),
  });
}

export function useDeleteSchedule(workflowId: string) {
  return useDelete("/api/schedules", ["schedules", workflowId]);
}
