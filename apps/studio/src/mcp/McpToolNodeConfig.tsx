import { Field } from "../ui/ui.tsx";
import { TemplateField } from "../workflows/config-fields.tsx";
import { parameterText, parameterValue, toolParameters, useMcpServers } from "./queries.ts";

export interface McpArgs {
  server_id?: string;
  tool?: string;
  arguments?: Record<string, unknown>;
}

/**
 * The Tool node's settings for `mcp_tool`: a server of the workspace, one of its tools, and a value
 * or template per parameter, from the tool's input schema.
 */
export function McpToolNodeConfig({
  args,
  variables,
  onChange,
}: {
  args: McpArgs;
  variables: string[];
  onChange: (args: McpArgs) => void;
}) {
  const servers = useMcpServers();
  const server = servers.data?.data.find((candidate) => candidate.id === args.server_id);
  const tool = server?.tools?.find((candidate) => candidate.name === args.tool);
  const values = args.arguments ?? {};
  return (
    <>
      <Field
        label="MCP server"
        hint={servers.data?.data.length === 0 ? "Add one in Settings first." : undefined}
      >
        <select
          value={args.server_id ?? ""}
          onChange={(e) => onChange({ server_id: e.target.value, arguments: {} })}
        >
          <option value="">Choose a server</option>
          {servers.data?.data.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.name}
            </option>
          ))}
        </select>
      </Field>
      {server ? (
        <Field
          label="Tool of the server"
          hint={server.tools === null ? "Test the server in Settings to list its tools." : tool?.description}
        >
          <select
            value={args.tool ?? ""}
            onChange={(e) => onChange({ ...args, tool: e.target.value, arguments: {} })}
          >
            <option value="">Choose a tool</option>
            {server.tools?.map((candidate) => (
              <option key={candidate.name} value={candidate.name}>
                {candidate.title ?? candidate.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      {tool
        ? toolParameters(tool).map(({ name, property, isRequired }) => (
            <TemplateField
              key={name}
              label={`${name}${isRequired ? " *" : ""}${property.type ? ` (${String(property.type)})` : ""}`}
              value={parameterText(values[name])}
              variables={variables}
              onChange={(text) => {
                const { [name]: _, ...others } = values;
                onChange({
                  ...args,
                  arguments: text === "" ? others : { ...others, [name]: parameterValue(text, property) },
                });
              }}
            />
          ))
        : null}
    </>
  );
}
