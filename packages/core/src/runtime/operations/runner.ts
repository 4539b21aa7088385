/** What an operation handler may ask of the executor that runs it. */
import type { OperationDescriptor, Timing } from '../../catalogue/types';
import type { PreparedRequest } from '../validation';

export interface RunOptions {
	/** For paginated operations: fetch every page (default) or stop at `limit` items. */
	returnAll?: boolean;
	limit?: number;
}

export interface OperationRunner {
	readonly timing: Timing;
	/** Any catalogue operation, as Executor.run. */
	run(operation: string | OperationDescriptor, input?: Record<string, unknown>, runOptions?: RunOptions): Promise<unknown>;
	/** One validated request (one page for a list), as Executor.call. */
	call(op: OperationDescriptor, input: Record<string, unknown>, deadline?: number): Promise<unknown>;
	/** Validates the input and builds the request without sending it. */
	prepare(op: OperationDescriptor, input: Record<string, unknown>): PreparedRequest;
}
