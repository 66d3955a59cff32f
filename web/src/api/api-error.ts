import type { ErrorBody } from './types.ts';

/** A refusal from the server (or a failure to reach it), with the API's code and its readable message. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown>;

  constructor({ status, body }: { status: number; body: ErrorBody }) {
    super(body.message);
    this.code = body.error;
    this.status = status;
    this.details = body.details;
  }
}

/** Reads an error body, or makes one from the status when the response is not the API's JSON (a proxy's page). */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof body.error === 'string' && typeof body.message === 'string') {
      return new ApiError({
        status: response.status,
        body: { error: body.error, message: body.message, details: body.details ?? {} },
      });
    }
  } catch {
    // Not JSON: described below from the status.
  }
  const message = `The server answered ${response.status} ${response.statusText || ''}`.trim();
  return new ApiError({ status: response.status, body: { error: 'http_error', message: `${message}.`, details: {} } });
}

/** What a page says about any failure: the server's message, or the network's. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The server cannot be reached. Check that agency serve is running.';
  return error instanceof Error ? error.message : String(error);
}
