/**
 * A transport that records requests and answers from a script, for the executor's rules that a
 * real server cannot be made to show on demand (exact retry sequences, every error shape). The same
 * rules are also exercised against the sandbox in packages/core/test/executor-sandbox.test.ts.
 */
import { TransportFailure, type Timing, type Transport, type TransportRequest, type TransportResponse } from '@chat-messaging/core';

export type Step = TransportResponse | TransportFailure | ((request: TransportRequest) => TransportResponse | TransportFailure);

export function ok(data: unknown, status = 200): TransportResponse {
	return { status, headers: { 'content-type': 'application/json' }, body: { status: 'ok', data } };
}

export function fail(status: number, body: unknown, headers: Record<string, string> = {}): TransportResponse {
	return { status, headers: { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers }, body };
}

export interface ScriptedTransport {
	transport: Transport;
	requests: TransportRequest[];
}

/** Answers each request with the next step; the last step repeats. */
export function scripted(...steps: Step[]): ScriptedTransport {
	const requests: TransportRequest[] = [];
	const transport: Transport = async (request) => {
		requests.push(request);
		const step = steps[Math.min(requests.length - 1, steps.length - 1)];
		const answer = typeof step === 'function' ? step(request) : step;
		if (answer instanceof TransportFailure) throw answer;
		return answer;
	};
	return { transport, requests };
}

/** Virtual time: sleep advances the clock at once and is recorded. */
export function virtualTiming(random = 0.5): Timing & { sleeps: number[]; clock: { now: number } } {
	const clock = { now: 1_700_000_000_000 };
	const sleeps: number[] = [];
	return {
		clock,
		sleeps,
		now: () => clock.now,
		random: () => random,
		sleep: async (ms: number) => {
			sleeps.push(ms);
			clock.now += ms;
		},
	};
}
