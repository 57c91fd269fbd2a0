import { McpServers } from "../mcp/McpServers.tsx";
import { PageHeader } from "../ui/ui.tsx";
import { ApiKeys } from "./ApiKeys.tsx";
import { Credentials } from "./Credentials.tsx";
import { Webhooks } from "./Webhooks.tsx";

export function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" />
      <nav className="settings-nav" aria-label="Settings sections">
        <a href="#credentials">Provider credentials</a>
        <a href="#mcp-servers">MCP servers</a>
        <a href="#api-keys">API keys</a>
        <a href="#webhooks">Outgoing webhooks</a>
      </nav>
      <div className="settings">
        <Credentials />
        <McpServers />
        <ApiKeys />
        <Webhooks />
      </div>
    </>
  );
}
