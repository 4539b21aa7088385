/** Operations the service can only do whole (a label's chats, a chat's fields): read, combine, write. */
import { findOperation } from '../../catalogue/endpoints';
import type { OperationDescriptor } from '../../catalogue/types';
import type { OperationRunner } from './runner';

export async function readModifyWrite(
	runner: OperationRunner,
	op: OperationDescriptor,
	steps: NonNullable<OperationDescriptor['readModifyWrite']>,
	input: Record<string, unknown>,
): Promise<unknown> {
	const request = runner.prepare(op, input); // validate the caller's input before the read
	const current = await runner.run(steps.read, input);
	const combined = steps.combine(input, current, request.body ?? {});
	const write = typeof steps.write === 'function' ? steps.write(combined) : steps.write;
	return runner.call(findOperation(write), combined);
}
