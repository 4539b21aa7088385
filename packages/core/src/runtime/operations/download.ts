/** Downloading a file: read the record, then the bytes its short-lived URL links to. */
import { operationId } from '../../catalogue/endpoints';
import type { OperationDescriptor } from '../../catalogue/types';
import { unexpectedResponse } from '../errors';
import type { HttpExchange } from '../http/exchange';
import { isRecord } from '../validation';
import type { OperationRunner } from './runner';

export async function downloadRecord(
	runner: OperationRunner,
	http: HttpExchange,
	op: OperationDescriptor,
	keys: NonNullable<OperationDescriptor['download']>,
	input: Record<string, unknown>,
) {
	const record = await runner.call(op, input);
	const url = isRecord(record) ? record[keys.urlKey] : undefined;
	if (!isRecord(record) || typeof url !== 'string' || !url)
		throw unexpectedResponse(`${op.method} ${op.path}`, `data.${keys.urlKey}`, record, operationId(op));
	const text = (key: string) => (typeof record[key] === 'string' && record[key] ? String(record[key]) : undefined);
	return { ...(await http.download(url, { filename: text(keys.filenameKey), mimeType: text(keys.mimeTypeKey) })), file: record };
}
