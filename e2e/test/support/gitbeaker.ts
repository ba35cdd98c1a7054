import { Gitlab, GitbeakerRequestError } from "@gitbeaker/rest";

/** A gitbeaker client, as the suites build it. */
export type Client = InstanceType<typeof Gitlab>;

/** The status and description gitbeaker reports for a refused request. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number; description: string }> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof GitbeakerRequestError)) throw err;
    const cause = err.cause as { description: string; response: Response };
    return { status: cause.response.status, description: cause.description };
  }
  throw new Error("the request succeeded; a refusal was expected");
}
