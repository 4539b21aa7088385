export interface RealN8n {
	listWithNode(): Promise<number[]>;
	listWithHttpRequestNode(): Promise<number[]>;
	stop(): Promise<void>;
}
export async function startRealN8n(_url: string, _token: string): Promise<RealN8n | undefined> {
	return undefined;
}
