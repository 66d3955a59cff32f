import { type Zep, ZepClient, ZepError, ZepTimeoutError } from '@getzep/zep-cloud';
import { AgencyError } from '../../../core/errors.ts';
import { createRedactor } from '../../../core/redact.ts';
import * as serialization from '@getzep/zep-cloud/serialization';

/** The Zep endpoints the store calls, each returning the SDK's parsed response. */
export type ZepCalls = {
  getGraph(graphId: string): Promise<Zep.Graph | null>;
  createGraph(graphId: string): Promise<void>;
  listGraphs(pageNumber: number, pageSize: number): Promise<Zep.GraphListResponse>;
  addEpisode(request: Zep.AddDataRequest): Promise<Zep.Episode>;
  listEpisodes(graphId: string, lastn: number): Promise<Zep.Episode[] | null>;
  deleteEpisode(uuid: string): Promise<boolean>;
};

/** How to reach Zep. */
export type ZepConnection = {
  apiKey: string;
  /** @default the Zep Cloud API, https://api.getzep.com/api/v2 */
  baseUrl?: string;
  /** Seconds before one request gives up. @default 30 */
  timeoutSeconds?: number;
  /** Retries of a request that failed with 408, 429 or 5xx (the SDK's backoff). @default 2 */
  maxRetries?: number;
};

/**
 * The Zep SDK's client behind {@link ZepCalls}. Every failure becomes an AgencyError naming the endpoint (`POST
 * /graph`), with the API key redacted from its message; a 404 of a read means "no such graph or episode".
 */
export function createZepCalls(connection: ZepConnection): ZepCalls {
  const client = new ZepClient({
    apiKey: connection.apiKey,
    ...(connection.baseUrl === undefined ? {} : { baseUrl: connection.baseUrl }),
  });
  const redactor = createRedactor({ extraSecrets: [connection.apiKey] });
  const options = { timeoutInSeconds: connection.timeoutSeconds ?? 30, maxRetries: connection.maxRetries ?? 2 };
  // The SDK parses responses with `skipValidation`, so each answer is checked here by the SDK's own schema.
  const call = async <T>(endpoint: string, run: () => Promise<T>, missing?: T): Promise<T> => {
    try {
      return checked(endpoint, await run());
    } catch (error) {
      if (AgencyError.isInstance(error)) throw error;
      if (missing !== undefined && error instanceof ZepError && error.statusCode === 404) return missing;
      throw zepFailure(endpoint, error, redactor.redactText);
    }
  };
  return {
    getGraph: (graphId) => call(GET_GRAPH, () => client.graph.get(graphId, options), null as Zep.Graph | null),
    createGraph: async (graphId) => {
      await call('POST /graph/create', () => client.graph.create({ graphId, name: graphId }, options));
    },
    listGraphs: (pageNumber, pageSize) =>
      call('GET /graph/list-all', () => client.graph.listAll({ pageNumber, pageSize }, options)),
    addEpisode: (request) => call('POST /graph', () => client.graph.add(request, options)),
    listEpisodes: async (graphId, lastn) => {
      const found = await call(
        'GET /graph/episodes/graph/{graphId}',
        () => client.graph.episode.getByGraphId(graphId, { lastn }, options),
        null as Zep.EpisodeResponse | null,
      );
      return found === null ? null : (found.episodes ?? []);
    },
    deleteEpisode: async (uuid) => {
      const gone = await call(
        'DELETE /graph/episodes/{uuid}',
        () => client.graph.episode.delete(uuid, options),
        null as Zep.SuccessResponse | null,
      );
      return gone !== null;
    },
  };
}

/** A Zep failure as an AgencyError: what the endpoint answered and what to do about it, never the API key. */
export function zepFailure(endpoint: string, error: unknown, redact: (text: string) => string): AgencyError {
  const status = error instanceof ZepError ? error.statusCode : undefined;
  const said = redact(error instanceof Error ? error.message : String(error)).slice(0, 300);
  if (error instanceof ZepTimeoutError) {
    return new AgencyError('memory_store_unavailable', `Zep ${endpoint} timed out; check the Zep URL and network`);
  }
  if (status === 401 || status === 403) {
    return new AgencyError(
      'memory_store_unavailable',
      `Zep ${endpoint} refused the API key (${status}); set a valid key in ZEP_API_KEY`,
      { retryable: false },
    );
  }
  if (status === 429) {
    return new AgencyError('memory_store_unavailable', `Zep ${endpoint} is rate limiting (429); retry after a pause`, {
      retryable: true,
    });
  }
  if (status !== undefined && status >= 500) {
    return new AgencyError('memory_store_unavailable', `Zep ${endpoint} failed on the server (${status}): ${said}`, {
      retryable: true,
    });
  }
  if (status !== undefined) {
    return new AgencyError('memory_store_unavailable', `Zep ${endpoint} rejected the request (${status}): ${said}`, {
      retryable: false,
    });
  }
  return new AgencyError(
    'memory_store_unavailable',
    `Zep ${endpoint} gave no usable answer (unreachable, or a response that is not Zep's): ${said}`,
  );
}

const GET_GRAPH = 'GET /graph/{graphId}';

type Answer = { json(value: unknown, options: object): { ok: boolean } };
type Fields = Record<string, unknown>;

/**
 * The SDK's schema of each endpoint's answer, and the field the store relies on (every field of these types is
 * optional, and the SDK hands back a body that is not JSON as an object of its own, so the schema alone passes it).
 */
const ANSWERS: Record<string, [Answer, (value: Fields) => boolean]> = {
  [GET_GRAPH]: [serialization.Graph, (graph) => typeof graph.graphId === 'string'],
  'POST /graph/create': [serialization.Graph, (graph) => typeof graph.graphId === 'string'],
  'GET /graph/list-all': [serialization.GraphListResponse, (list) => Array.isArray(list.graphs)],
  'POST /graph': [serialization.Episode, () => true],
  'GET /graph/episodes/graph/{graphId}': [serialization.EpisodeResponse, (found) => Array.isArray(found.episodes)],
  'DELETE /graph/episodes/{uuid}': [serialization.SuccessResponse, (done) => !('ok' in done && 'error' in done)],
};

function checked<T>(endpoint: string, value: T): T {
  const [schema, has] = ANSWERS[endpoint] ?? [];
  if (typeof value === 'object' && value !== null && schema !== undefined && has !== undefined) {
    if (schema.json(value, { unrecognizedObjectKeys: 'passthrough' }).ok && has(value as Fields)) return value;
  }
  throw new AgencyError(
    'memory_store_unavailable',
    `Zep ${endpoint} gave no usable answer: the response is not the shape of the Zep API (a proxy or another service?)`,
  );
}
