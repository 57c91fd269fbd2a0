// The webhook bench's receiver in a process of its own: verifying every signature on the same event
// loop as the bench's API clients made the bench itself the bottleneck. Arrivals go back to the
// bench over IPC in batches of [payment id, Date.now() on arrival].
import { startTestReceiver } from "@app/webhooks/testing";

const send = (message: object) => process.send?.(message);
let secret = "";
let arrivals: [string, number][] = [];
let invalid = 0;

const receiver = await startTestReceiver({
  isRecording: false,
  secrets: () => [secret],
  onDelivery: (delivery) => {
    if (!delivery.verification?.isValid) {
      invalid += 1;
      return;
    }
    arrivals.push([(delivery.event.data.object as { id: string }).id, delivery.receivedAt]);
  },
});

const flush = () => {
  if (arrivals.length === 0 && invalid === 0) return;
  send({ type: "arrivals", arrivals, invalid });
  arrivals = [];
  invalid = 0;
};
const timer = setInterval(flush, 20);

process.on("message", async (message: { type: "secret"; secret: string } | { type: "close" }) => {
  if (message.type === "secret") secret = message.secret;
  if (message.type === "close") {
    clearInterval(timer);
    await receiver.close();
    flush();
    send({ type: "closed" });
    process.disconnect();
  }
});
send({ type: "ready", url: receiver.url });
