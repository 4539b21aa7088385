/** The part of node-red-node-test-helper (which ships no types) these tests use. */
declare module 'node-red-node-test-helper' {
	interface NodeTestHelper {
		init(runtimePath: string, userSettings?: Record<string, unknown>): void;
		settings(userSettings: Record<string, unknown>): Record<string, unknown>;
		load(nodes: unknown, flow: unknown[], credentials?: Record<string, unknown>): Promise<void>;
		setFlows(flow: unknown[], type?: 'full' | 'flows' | 'nodes', credentials?: Record<string, unknown>): Promise<void>;
		unload(): Promise<void>;
		getNode(id: string): unknown;
		startServer(): Promise<void>;
		stopServer(): Promise<void>;
		url(): string;
		/** The sinon spy on the runtime log (calls of the current load). */
		log(): { args: unknown[][] };
		/** supertest against the admin app the nodes registered their routes on. */
		request(): AdminRequest;
	}
	/** The slice of supertest the admin endpoint tests use. */
	interface AdminResponse {
		status: number;
		body: any;
		text: string;
	}
	interface AdminCall extends PromiseLike<AdminResponse> {
		query(values: Record<string, unknown>): AdminCall;
		send(body: unknown): AdminCall;
		expect(status: number): Promise<AdminResponse>;
	}
	interface AdminRequest {
		get(path: string): AdminCall;
		post(path: string): AdminCall;
	}
	const helper: NodeTestHelper;
	export default helper;
}
