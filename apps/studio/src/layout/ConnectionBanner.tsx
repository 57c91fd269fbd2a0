import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { onConnectionChange, serverReachable } from "../api/client.ts";

/**
 * A banner while the browser is offline or the last request got no answer from the server. It
 * clears itself on the next answer; coming back online refetches what failed meanwhile.
 */
export function ConnectionBanner() {
  const client = useQueryClient();
  const [isOnline, setOnline] = useState(() => navigator.onLine);
  const [isReachable, setReachable] = useState(serverReachable);

  useEffect(() => {
    const online = () => {
      setOnline(true);
      void client.refetchQueries({ type: "active", predicate: (query) => query.state.status === "error" });
    };
    const offline = () => setOnline(false);
    window.addEventListener("online", online);
    window.addEventListener("offline", offline);
    const stop = onConnectionChange(setReachable);
    return () => {
      window.removeEventListener("online", online);
      window.removeEventListener("offline", offline);
      stop();
    };
  }, [client]);

  if (isOnline && isReachable) return null;
  return (
    <div className="connection-banner" role="status" data-testid="connection-banner">
      {isOnline
        ? "The server is not answering. What you change now is not saved; try again in a moment."
        : "You are offline. What you change now is not saved until the connection is back."}
      <button
        type="button"
        className="btn btn-secondary"
        onClick={() =>
          void client.refetchQueries({ type: "active", predicate: (query) => query.state.status === "error" })
        }
      >
        Retry now
      </button>
    </div>
  );
}
