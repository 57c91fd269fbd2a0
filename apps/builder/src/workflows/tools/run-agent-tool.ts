import { NodeExecutionError } from "@app/workflow";
import { findTurnContext } from "../../agents/find-turn-context.ts";
import { prepareAgentTurn } from "../../agents/prepare-agent-turn.ts";
import { runAgentTurn } from "../../agents/run-agent-turn.ts";
import type { Deps } from "../../deps.ts";
import { checkNestingDepth } from "../nesting.ts";
import { defineTool, z } from "./registry.ts";

/**
 * `run_agent`: one turn of an agent of the workspace, with its instructions, tools and knowledge,
 * stored as a conversation like a chat turn (pass `conversation_id` to continue one). The agent's
 * own workflow tools run one level deeper, so agents and workflows cannot call each other forever.
 */
export function runAgentTool(deps: Pick<Deps, "db" | "clock" | "config" | "logger" | "ai" | "agentTools">) {
  return defineTool({
    name: "run_agent",
    description: "Sends a message to an agent of the workspace and returns its answer.",
    outputs: ["result", "text", "conversation_id", "tool_calls", "usage"],
    args: z.object({
      agent_id: z.string().min(1).max(64),
      message: z.string().trim().min(1).max(32_000),
      conversation_id: z.string().max(64).optional(),
    }),
    run: async (args, { workspaceId, signal, depth }) => {
      checkNestingDepth(depth);
      const context = await findTurnContext(deps.db, workspaceId, {
        agentId: args.agent_id,
        conversationId: args.conversation_id,
      });
      if (!context || context === "version_not_found")
        throw new NodeExecutionError("agent_not_found", `No agent ${args.agent_id} in this workspace.`);
      const turn = await prepareAgentTurn(
        deps,
        workspaceId,
        context,
        { message: args.message, conversation_id: args.conversation_id },
        depth + 1,
        { source: "workflow" },
      );
      const events = runAgentTurn(deps, turn, signal);
      let next = await events.next();
      while (!next.done) next = await events.next();
      const { message, conversation_id, usage } = next.value;
      return {
        result: message.content,
        text: message.content,
        conversation_id,
        tool_calls: message.tool_calls,
        usage,
      };
    },
  });
}
