/**
 * Sends through an MCP server's sessions as the clients of one connector do, for the OAuth e2e and its bench: SDK
 * clients (2025-11-25, a session each, opened on the given endpoints in turn) each sending its messages a few at a
 * time with `message_send`; and what the service counted meanwhile (the sandbox's traffic counters: requests, those
 * it refused for the rate, messages charged), read from the service itself, never from the server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface PacingPlan {
	sessions: number;
	/** Messages each session sends. */
	sends: number;
	/** Calls each session has in flight at once. */
	inFlight: number;
}

/**
 * The sends the OAuth e2e and its bench make: 1,000, as the queue-mode e2e sends over n8n's workers, from four sessions
 * (the clients of one connector), four calls in flight each.
 */
export const CONNECTOR_PACING: PacingPlan = { sessions: 4, sends: 250, inFlight: 4 };

/** The service's limit per token (the sandbox's --rate-limit): 30 a second, a burst of 10; the floor of `sends` under it. */
export const floorSeconds = (sends: number) => (sends - 10) / 30;

export interface ServiceCounts {
	requests: number;
	refused: number;
	charged: number;
}

/** The sandbox's counters for one workspace token. */
export async function serviceCounts(service: { url: string; token: string }): Promise<ServiceCounts> {
	const read = async <T>(path: string): Promise<T> => {
		const response = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${service.token}` } });
		return ((await response.json()) as { data: T }).data;
	};
	const traffic = await read<{ api_calls: number; rate_limited: number }>('/_sandbox/traffic');
	const queue = await read<{ quota: { used: number } }>('/_sandbox/queue');
	return { requests: traffic.api_calls, refused: traffic.rate_limited, charged: queue.quota.used };
}

/** The plan's sends into one chat, `tag` in each text; how long they took, the tool errors, the sessions' ids. */
export async function sendThroughSessions(
	endpoints: readonly string[],
	token: string,
	chatId: number,
	plan: PacingPlan,
	tag: string,
): Promise<{ ms: number; toolErrors: number; sessionIds: string[] }> {
	const sessions: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];
	try {
		for (let index = 0; index < plan.sessions; index++) {
			const client = new Client({ name: `${tag}-${index}`, version: '1.0.0' });
			const transport = new StreamableHTTPClientTransport(new URL(endpoints[index % endpoints.length]!), {
				requestInit: { headers: { authorization: `Bearer ${token}` } },
			});
			await client.connect(transport);
			sessions.push({ client, transport });
		}
		const started = Date.now();
		let toolErrors = 0;
		await Promise.all(
			sessions.map(({ client }, index) => {
				let next = 0;
				return Promise.all(
					Array.from({ length: plan.inFlight }, async () => {
						while (next < plan.sends) {
							const n = next++;
							const result = await client.callTool({
								name: 'message_send',
								arguments: { sendTo: 'chat', chat_id: chatId, text: `${tag} ${index}.${n}` },
							});
							if (result.isError) toolErrors++;
						}
					}),
				);
			}),
		);
		return { ms: Date.now() - started, toolErrors, sessionIds: sessions.map(({ transport }) => transport.sessionId ?? '') };
	} finally {
		for (const { client } of sessions) await client.close();
	}
}
