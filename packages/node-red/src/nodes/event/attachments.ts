/** Download Attachments: the files of an inbound message go along as `msg.attachments`; a failed download loses nothing. */
import { downloadEventAttachments, type ChatEvent, type Executor } from '@chat-messaging/core';
import type { NodeMessage } from 'node-red';
import { asChatMessagingError } from '../../shared/errors';

export async function attachFiles(executor: Executor, event: ChatEvent, msg: NodeMessage, warn: (text: string) => void): Promise<void> {
	if (!event.event_type.startsWith('message:')) return;
	try {
		const files = await downloadEventAttachments(executor, event);
		if (files.length) {
			msg.attachments = files.map((file) => ({
				filename: file.filename,
				mimeType: file.mimeType,
				data: Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength),
			}));
		}
	} catch (error) {
		msg.attachmentError = asChatMessagingError(error).message;
		warn(`Could not download the attachments of ${event.message_uid ?? 'an event'}: ${String(msg.attachmentError)}`);
	}
}
