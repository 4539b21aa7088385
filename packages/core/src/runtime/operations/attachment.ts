/** A send with an attachment: upload the bytes (or register the URL) first, then send the file's uid. */
import type { BinaryInput, OperationDescriptor } from '../../catalogue/types';
import type { OperationRunner } from './runner';
import type { SendRecovery } from './sendRecovery';

/** An attachment for a send: bytes to upload, or a public URL the service downloads. */
export type Attachment = { binary: BinaryInput } | { url: string; filename?: string; contentType?: string };

export async function sendWithAttachment(
	runner: OperationRunner,
	recovery: SendRecovery,
	op: OperationDescriptor,
	input: Record<string, unknown>,
	attachment: Attachment,
): Promise<Record<string, unknown>> {
	// Validate everything but the file before uploading, so bad input costs no upload.
	runner.prepare(op, { ...input, file_uid: 'pending-upload' });
	const file = (
		'binary' in attachment
			? await runner.run('file:upload', {
					file: attachment.binary,
					filename: attachment.binary.filename,
					content_type: attachment.binary.mimeType,
				})
			: await runner.run('file:uploadFromUrl', {
					download_url: attachment.url,
					filename: attachment.filename,
					content_type: attachment.contentType,
				})
	) as Record<string, unknown>;
	const sent = await recovery.send(op, { ...input, file_uid: file.uid });
	return { ...sent, file };
}
