/** Files: list, upload from a public URL or directly (multipart), download link, delete. */
import { field, fileUid, page } from '../fields';
import type { ResourceDescriptor } from '../types';

const filename = (location: 'body' | 'multipart') => field(location, 'filename', 'File Name', 'string', 'Name to store the file under');
const contentType = (location: 'body' | 'multipart') =>
	field(location, 'content_type', 'Content Type', 'string', 'MIME type, e.g. image/png');

export const fileResource: ResourceDescriptor = {
	key: 'file',
	name: 'File',
	description: 'Uploaded files, to attach to messages. Images, audio and video up to 16 MB; documents up to 100 MB',
	operations: [
		{
			resource: 'file',
			operation: 'getAll',
			name: 'Get Many',
			action: 'Get many files',
			description: 'List uploaded files',
			method: 'GET',
			path: '/files',
			effect: 'read',
			unwrap: 'files',
			returns: 'file',
			pagination: { itemsKey: 'files', pageParam: 'page' },
			fields: [field('query', 'filename', 'File Name Contains', 'string', 'Case-insensitive part of the file name'), page],
		},
		{
			resource: 'file',
			operation: 'uploadFromUrl',
			name: 'Upload From URL',
			action: 'Upload a file from a public URL',
			description: 'The service downloads the file from a public URL',
			method: 'POST',
			path: '/files',
			effect: 'create',
			returns: 'file',
			fields: [
				field('body', 'download_url', 'Download URL', 'url', 'Public address of the file', { required: true }),
				filename('body'),
				contentType('body'),
			],
		},
		{
			resource: 'file',
			operation: 'upload',
			name: 'Upload',
			action: 'Upload a file',
			description: 'Upload the bytes of a file directly',
			wireNote: 'multipart/form-data',
			method: 'POST',
			path: '/files_upload',
			effect: 'create',
			returns: 'file',
			fields: [
				field('multipart', 'file', 'File', 'binary', 'The bytes to upload', { required: true }),
				filename('multipart'),
				contentType('multipart'),
			],
		},
		{
			resource: 'file',
			operation: 'get',
			name: 'Get',
			action: 'Get a file',
			description: 'The file record with a temporary download URL',
			method: 'GET',
			path: '/files/{uid}',
			effect: 'read',
			returns: 'file',
			fields: [fileUid],
		},
		{
			resource: 'file',
			operation: 'download',
			name: 'Download',
			action: 'Download a file',
			description: 'The bytes of an uploaded file, fetched through its temporary download URL',
			method: 'GET',
			path: '/files/{uid}',
			effect: 'read',
			friendlyOf: 'file:get',
			download: { urlKey: 'temporary_download_url', filenameKey: 'filename', mimeTypeKey: 'mimetype' },
			fields: [fileUid],
		},
		{
			resource: 'file',
			operation: 'delete',
			destructive: true,
			name: 'Delete',
			action: 'Delete a file',
			description: 'Delete an uploaded file',
			method: 'DELETE',
			path: '/files/{uid}',
			effect: 'idempotent',
			fields: [fileUid],
		},
	],
};
