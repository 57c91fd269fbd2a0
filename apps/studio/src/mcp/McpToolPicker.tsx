import {
  type McpServer,
  type McpTool,
  parameterText,
  parameterValue,
  toolParameters,
  useMcpServers,
} from "./queries.ts";

/** An agent's tool entry for one MCP server (the API's `{ type: "mcp" }` tool). */
export interface McpAgentTool {
  type: "mcp";
  server_id: string;
  prefix?: string;
  tools?: { name: string; description?: string; fixed_arguments?: Record<string, unknown> }[];
}

export function isMcpAgentTool(tool: unknown): tool is McpAgentTool {
  return typeof tool === "object" && tool !== null && (tool as { type?: unknown }).type === "mcp";
}

/**
 * Which tools of the workspace's MCP servers an agent gets: all of a server's, or chosen ones, each
 * parameter left to the model or fixed to a value, and the description the model reads.
 */
export function McpToolPicker({
  value,
  onChange,
}: {
  value: McpAgentTool[];
  onChange: (next: McpAgentTool[]) => void;
}) {
  const servers = useMcpServers();
  if (!servers.data || servers.data.data.length === 0) {
    return (
      <p className="muted">
        No MCP servers yet: add one in <a href="/settings#mcp-servers">Settings</a> to give this agent its
        tools.
      </p>
    );
  }
  const entryOf = (server: McpServer) => value.find((entry) => entry.server_id === server.id);
  const replace = (server: McpServer, next: McpAgentTool | undefined) =>
    onChange([...value.filter((entry) => entry.server_id !== server.id), ...(next ? [next] : [])]);
  return (
    <fieldset className="mcp-tools">
      <legend className="field-label">MCP tools</legend>
      {servers.data.data.map((server) => {
        const entry = entryOf(server);
        return (
          <div key={server.id} className="mcp-server-tools">
            <label>
              <input
                type="checkbox"
                checked={entry !== undefined}
                onChange={(e) =>
                  replace(server, e.target.checked ? { type: "mcp", server_id: server.id } : undefined)
                }
              />
              {server.name} <span className="muted">{server.url}</span>
            </label>
            {entry ? (
              <ServerTools server={server} entry={entry} onChange={(next) => replace(server, next)} />
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}

function ServerTools({
  server,
  entry,
  onChange,
}: {
  server: McpServer;
  entry: McpAgentTool;
  onChange: (next: McpAgentTool) => void;
}) {
  const isAll = entry.tools === undefined;
  const chosen = entry.tools ?? [];
  const pickOf = (tool: McpTool) => chosen.find((pick) => pick.name === tool.name);
  const setPick = (tool: McpTool, pick: (typeof chosen)[number] | undefined) =>
    onChange({
      ...entry,
      tools: [...chosen.filter((each) => each.name !== tool.name), ...(pick ? [pick] : [])],
    });
  if (server.tools === null) {
    return <p className="muted">All its tools. Test the server in Settings to list them and choose.</p>;
  }
  return (
    <div className="mcp-tool-list">
      <label>
        <input
          type="radio"
          checked={isAll}
          onChange={() => onChange({ type: "mcp", server_id: server.id })}
        />
        All its tools ({server.tools.length})
      </label>
      <label>
        <input type="radio" checked={!isAll} onChange={() => onChange({ ...entry, tools: [] })} />
        Chosen tools
      </label>
      {isAll
        ? null
        : server.tools.map((tool) => {
            const pick = pickOf(tool);
            return (
              <div key={tool.name} className="mcp-tool">
                <label title={tool.description}>
                  <input
                    type="checkbox"
                    checked={pick !== undefined}
                    onChange={(e) => setPick(tool, e.target.checked ? { name: tool.name } : undefined)}
                  />
                  <code>{tool.name}</code> <span className="muted">{tool.description}</span>
                </label>
                {pick ? (
                  <div className="mcp-tool-settings">
                    <label>
                      <span className="field-label">Description the model reads</span>
                      <input
                        value={pick.description ?? ""}
                        placeholder={tool.description}
                        maxLength={1000}
                        onChange={(e) => {
                          const { description: _, ...rest } = pick;
                          setPick(tool, e.target.value ? { ...rest, description: e.target.value } : rest);
                        }}
                      />
                    </label>
                    {toolParameters(tool).map(({ name, property, isRequired }) => {
                      const fixed = pick.fixed_arguments ?? {};
                      const isFixed = Object.hasOwn(fixed, name);
                      const setFixed = (next: Record<string, unknown>) => {
                        const { fixed_arguments: _, ...rest } = pick;
                        setPick(
                          tool,
                          Object.keys(next).length > 0 ? { ...rest, fixed_arguments: next } : rest,
                        );
                      };
                      return (
                        <div key={name} className="row">
                          <span title={property.description}>
                            <code>{name}</code>
                            {isRequired ? " *" : ""}{" "}
                            <span className="muted">{String(property.type ?? "")}</span>
                          </span>
                          <select
                            aria-label={`${tool.name} ${name}`}
                            value={isFixed ? "fixed" : "model"}
                            onChange={(e) => {
                              const { [name]: _, ...others } = fixed;
                              setFixed(e.target.value === "fixed" ? { ...others, [name]: "" } : others);
                            }}
                          >
                            <option value="model">Left to the model</option>
                            <option value="fixed">Fixed to</option>
                          </select>
                          {isFixed ? (
                            <input
                              aria-label={`${tool.name} ${name} value`}
                              value={parameterText(fixed[name])}
                              onChange={(e) =>
                                setFixed({ ...fixed, [name]: parameterValue(e.target.value, property) })
                              }
                            />
                          ) : null}
                        </div>
                      );
                    })}
                  </div>
                ) : null}
              </div>
            );
          })}
    </div>
  );
}
