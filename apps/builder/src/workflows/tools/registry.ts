import { type ExecutorContext, NodeExecutionError, type ToolOutputs } from "@app/workflow";
import { z } from "zod";

/** What a tool may use besides its arguments. */
export interface ToolContext {
  workspaceId: string;
  signal: AbortSignal;
  /** How many workflows deep this call is (run_workflow nests runs). */
  depth: number;
}

export interface WorkflowTool<Args = unknown> {
  name: string;
  description: string;
  /** The fields `{{tool_node.<field>}}` may reference. */
  outputs: readonly string[];
  args: z.ZodType<Args>;
  run(args: Args, context: ToolContext): Promise<Record<string, unknown>>;
}

/** Declares a tool with its argument schema, keeping the argument type for `run`. */
export function defineTool<Args>(tool: WorkflowTool<Args>): WorkflowTool<unknown> {
  return tool as WorkflowTool<unknown>;
}

/** The tools a workspace's Tool nodes can call, by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, WorkflowTool<unknown>>();

  constructor(tools: WorkflowTool<unknown>[]) {
    for (const tool of tools) this.tools.set(tool.name, tool);
  }

  /** Output fields per tool, for graph validation (an unknown tool name is an issue). */
  outputs(): ToolOutputs {
    return Object.fromEntries([...this.tools.values()].map((tool) => [tool.name, tool.outputs]));
  }

  list(): { name: string; description: string; outputs: readonly string[] }[] {
    return [...this.tools.values()].map(({ name, description, outputs }) => ({ name, description, outputs }));
  }

  /** The Tool node executor: checks the resolved arguments, then runs the tool. */
  executor(workspaceId: string, depth: number) {
    return async ({ inputs, signal }: ExecutorContext<"tool">) => {
      const tool = this.tools.get(inputs.tool);
      if (!tool) throw new NodeExecutionError("unknown_tool", `There is no tool named ${inputs.tool}.`);
      const parsed = tool.args.safeParse(inputs.args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
        throw new NodeExecutionError(
          "invalid_tool_args",
          `Invalid arguments for ${tool.name}. ${where}${issue?.message ?? ""}`,
        );
      }
      return { outputs: await tool.run(parsed.data, { workspaceId, signal, depth }) };
    };
  }
}

export { z };
