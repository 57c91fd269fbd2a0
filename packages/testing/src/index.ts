export { startFakeAnthropic } from "./fake-anthropic.ts";
export {
  type FakeCohereRerank,
  type FakeCohereRerankOptions,
  type FakeRerankCall,
  startFakeCohereRerank,
} from "./fake-cohere-rerank.ts";
export {
  type FakeEmbeddingCall,
  type FakeEmbeddingReply,
  type FakeEmbeddings,
  type FakeEmbeddingsOptions,
  startFakeEmbeddings,
} from "./fake-embeddings.ts";
export { startFakeGoogle } from "./fake-google.ts";
export { type FakeMcp, type FakeMcpCall, type FakeMcpOptions, startFakeMcp } from "./fake-mcp.ts";
export {
  type FakeMessage,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeReply,
  type FakeScript,
  type FakeToolCall,
  type FakeTurn,
  helloScript,
  isAfterToolResult,
  lastUserText,
} from "./fake-model.ts";
export type { FakeAuthorization } from "./fake-oauth.ts";
export { startFakeOpenAI } from "./fake-openai.ts";
export { type FakeOtlpReceiver, type ReceivedSpan, startFakeOtlpReceiver } from "./fake-otlp.ts";
export {
  FAKE_REPLICATE_MODELS,
  type FakePrediction,
  type FakeReplicate,
  type FakeReplicateOptions,
  type FakeReplicateOutcome,
  type FakeWebhookDelivery,
  signWebhook,
  startFakeReplicate,
  TINY_MP4,
  TINY_PNG,
} from "./fake-replicate.ts";
export {
  type FakeS3,
  type FakeS3Object,
  type FakeS3Options,
  type FakeS3Request,
  startFakeS3,
} from "./fake-s3.ts";
export { freePort } from "./ports.ts";
export { prometheusSample } from "./prometheus.ts";
export { type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from "./smtp-server.ts";
