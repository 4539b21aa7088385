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
	}
	const helper: NodeTestHelper;
	export default helper;
}
