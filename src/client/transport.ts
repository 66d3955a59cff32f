import type { z } from 'zod';
import { type Asked, errorFromAnswer, errorFromNoAnswer, invalidAnswer } from '../api/answer-errors.ts';

/** A `fetch` as the Web platform defines it: the global one, or any function of the same shape. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options for {@link createClient}. */
export type ClientOptions = {
  /**
   * Where the server is: its origin (`http://127.0.0.1:7420`), or the prefix a reverse proxy serves it under
   * (`https://tools.example.com/agency`). In a page the server served, `location.origin`.
   */
  baseUrl: string;
  /**
   * The bearer token (`AGENCY_TOKEN`). Leave it out in a browser that logged in with `client.login(token)`: the
   * session cookie is sent instead.
   */
  token?: string;
  /** @default globalThis.fetch */
  fetch?: FetchFunction;
  /** More headers for every request, e.g. for a proxy in front of the server. */
  headers?: Record<string, string>;
};

/** How one request is made. */
export type RequestOptions = {
  query?: Record<string, string | number | undefined>;
  /** A JSON body, or a `FormData` for uploads. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
};

/** Makes requests to one server: its URL, credentials and headers, and errors turned into `AgencyError`s. */
export type Transport = {
  /** Sends a request and returns the answer if its status is 2xx; throws the server's error otherwise. */
  send(method: 'GET' | 'POST', path: string, options?: RequestOptions): Promise<Response>;
  /** Sends a request and parses its JSON answer with `schema`. */
  json<T>(method: 'GET' | 'POST', path: string, schema: z.ZodType<T>, options?: RequestOptions): Promise<T>;
};

/** A request to the server, for the errors of `api/answer-errors.ts`: its messages are the server's own. */
export function askedServer(what: string): Asked {
  return { where: what, peer: 'the server', prefixAnswers: false };
}

/** The transport for `options`. */
export function createTransport({ baseUrl, token, fetch, headers = {} }: ClientOptions): Transport {
  const base = baseUrl.replace(/\/+$/, '');
  // Called as a plain function: a browser's fetch refuses to run with another object as `this`.
  const doFetch: FetchFunction = fetch ?? ((input, init) => globalThis.fetch(input, init));

  const send: Transport['send'] = async (method, path, { query, body, headers: extra, signal } = {}) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, String(value));
    const url = `${base}${path}${search.size > 0 ? `?${search}` : ''}`;
    const what = `${method} ${path}`;
    const requestHeaders: Record<string, string> = { accept: 'application/json', ...headers, ...extra };
    if (token !== undefined) requestHeaders.authorization = `Bearer ${token}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      requestHeaders['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers: requestHeaders,
        ...(payload === undefined ? {} : { body: payload }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw errorFromNoAnswer(error, askedServer(what), { signal });
    }
    if (!response.ok) throw errorFromAnswer(response.status, await response.text().catch(() => ''), askedServer(what));
    return response;
  };

  return {
    send,
    async json(method, path, schema, options) {
      const response = await send(method, path, options);
      const what = `${method} ${path}`;
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw errorFromNoAnswer(error, askedServer(what), { signal: options?.signal });
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw invalidAnswer(askedServer(what), response.status, `not JSON (${(error as Error).message})`);
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.map(String).join('.') || 'body';
        throw invalidAnswer(askedServer(what), response.status, `${where}: ${issue?.message ?? 'invalid'}`);
      }
      return parsed.data;
    },
  };
}
