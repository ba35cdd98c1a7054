/**
 * The URL guard's resolver remembers answers for a moment: a burst of saves and deliveries to one
 * host makes one DNS query (CI's resolver throttled bursts past the API's deadline).
 */
import { rememberingResolver, type ResolvedAddress, type Resolver } from "../../src/delivery";

function countingResolver(answer: () => Promise<ResolvedAddress[]>) {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    await new Promise((r) => setTimeout(r, 20));
    return answer();
  };
  return { asked, resolve };
}

const PUBLIC: ResolvedAddress[] = [{ address: "93.184.215.14", family: 4 }];

test("lookups of one name at once share one query, and its answer serves the next ones", async () => {
  const { asked, resolve } = countingResolver(async () => PUBLIC);
  const remembering = rememberingResolver(resolve, 60_000);
  const answers = await Promise.all(Array.from({ length: 50 }, () => remembering("example.com")));
  expect(answers.every((a) => a === answers[0])).toBe(true);
  expect(answers[0]).toEqual(PUBLIC);
  expect(await remembering("example.com")).toEqual(PUBLIC);
  expect(await remembering("other.example")).toEqual(PUBLIC);
  expect(asked).toEqual(["example.com", "other.example"]);
});

test("a name that does not resolve fails every caller with the resolver's error, once asked", async () => {
  const { asked, resolve } = countingResolver(async () => {
    throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.example"), { code: "ENOTFOUND" });
  });
  const remembering = rememberingResolver(resolve, 60_000);
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => remembering("nowhere.example")));
  expect(outcomes.every((o) => o.status === "rejected" && /ENOTFOUND/.test(String(o.reason)))).toBe(true);
  await expect(remembering("nowhere.example")).rejects.toThrow("ENOTFOUND");
  expect(asked).toEqual(["nowhere.example"]);
});

test("asks again once the answer is older than its time", async () => {
  let address = "93.184.215.14";
  const { asked, resolve } = countingResolver(async () => [{ address, family: 4 }]);
  const remembering = rememberingResolver(resolve, 50);
  expect((await remembering("example.com"))[0]!.address).toBe("93.184.215.14");
  address = "93.184.215.15";
  await new Promise((r) => setTimeout(r, 80));
  expect((await remembering("example.com"))[0]!.address).toBe("93.184.215.15");
  expect(asked).toHaveLength(2);
});
