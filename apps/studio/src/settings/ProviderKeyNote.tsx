import { useProviders } from "../agents/queries.ts";
import { Link } from "../ui/ui.tsx";
import { useCredentials } from "./credential-queries.ts";

/**
 * Beside a provider picker: says, before anything fails, that the workspace stores no key for the
 * chosen provider, with a link to add one (the server may still have its own key).
 */
export function ProviderKeyNote({ providerId }: { providerId: string }) {
  const providers = useProviders();
  const credentials = useCredentials();
  const provider = providers.data?.data.find((candidate) => candidate.id === providerId);
  const hasStoredKey = credentials.data?.data.some((credential) => credential.provider === providerId);
  if (!credentials.data || hasStoredKey || !provider) return null;
  return (
    <p className="field-hint provider-key-note" data-testid="provider-key-note">
      No {provider.name} key is stored in this workspace
      {provider.env_key ? ` (the server may have ${provider.env_key})` : ""}.{" "}
      <Link to={`/settings?provider=${encodeURIComponent(provider.id)}#credentials`}>
        Add a {provider.name} key
      </Link>
    </p>
  );
}
