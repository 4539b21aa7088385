/**
 * Downloaded files as n8n binary data, for every node: the action node's downloads, and the attachments the
 * trigger and Get Burst to Answer put on their items under the same names.
 */
import type { BinaryHelperFunctions, IBinaryData, IBinaryKeyData } from 'n8n-workflow';

import type { DownloadedFile } from '@chat-messaging/core';

type Helpers = Pick<BinaryHelperFunctions, 'prepareBinaryData'>;

/** One downloaded file as n8n binary data, named and typed as the service gave it. */
export async function binaryDataOf(helpers: Helpers, file: DownloadedFile): Promise<IBinaryData> {
	const bytes = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
	return await helpers.prepareBinaryData(bytes, file.filename, file.mimeType);
}

/** A message's or a burst's files as an item's binary data: attachment_0, attachment_1, …, oldest first; undefined when none. */
export async function attachmentsBinary(helpers: Helpers, files: readonly DownloadedFile[]): Promise<IBinaryKeyData | undefined> {
	if (!files.length) return undefined;
	const binary: IBinaryKeyData = {};
	for (const [index, file] of files.entries()) binary[`attachment_${index}`] = await binaryDataOf(helpers, file);
	return binary;
}
