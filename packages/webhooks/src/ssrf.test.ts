import { describe, expect, it } from "vitest";
import { checkWebhookUrl, isBlockedAddress, WebhookUrlError } from "./ssrf.ts";

describe("isBlockedAddress", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "fd00:ec2::254",
    "not-an-ip",
  ])("blocks %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])(
    "lets the public %s through",
    (address) => {
      expect(isBlockedAddress(address)).toBe(false);
    },
  );
});

describe("checkWebhookUrl", () => {
  const publicResolver = async () => ["93.184.216.34"];
  const rebindingResolver = async () => ["93.184.216.34", "10.0.0.5"];

  it("accepts a public https URL", async () => {
    const url = await checkWebhookUrl("https://hooks.example.com/x", {
      allowPrivate: false,
      requireHttps: true,
      resolve: publicResolver,
    });
    expect(url.hostname).toBe("hooks.example.com");
  });

  it("refuses literal private addresses and hosts resolving to any private address", async () => {
    for (const raw of [
      "http://127.0.0.1:8080/",
      "http://[::1]/",
      "http://169.254.169.254/latest/meta-data",
    ]) {
      await expect(checkWebhookUrl(raw, { allowPrivate: false, requireHttps: false })).rejects.toMatchObject({
        reason: "private_address",
      });
    }
    await expect(
      checkWebhookUrl("https://sneaky.example.com/", {
        allowPrivate: false,
        requireHttps: false,
        resolve: rebindingResolver,
      }),
    ).rejects.toBeInstanceOf(WebhookUrlError);
  });

  it("allows private targets when told to", async () => {
    const url = await checkWebhookUrl("http://127.0.0.1:9/", { allowPrivate: true, requireHttps: false });
    expect(url.port).toBe("9");
  });

  it("requires https when asked and refuses other schemes and credentials", async () => {
    await expect(
      checkWebhookUrl("http://hooks.example.com/", { allowPrivate: true, requireHttps: true }),
    ).rejects.toMatchObject({ reason: "https_required" });
    for (const raw of ["ftp://example.com/", "not a url", "https://user:pw@example.com/"]) {
      await expect(checkWebhookUrl(raw, { allowPrivate: true, requireHttps: false })).rejects.toMatchObject({
        reason: "invalid_url",
      });
    }
  });
});
