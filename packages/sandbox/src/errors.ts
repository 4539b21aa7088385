/** API errors and the HTTP status chosen for each error_code (the spec leaves the mapping open). */

export type ErrorCode =
	| 'missing_credentials'
	| 'invalid_token'
	| 'member_not_found'
	| 'permission_denied'
	| 'plan_feature_unavailable'
	| 'quota_exceeded'
	| 'rate_limit_exceeded'
	| 'validation_error'
	| 'not_supported'
	| 'internal_error';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
	missing_credentials: 401,
	invalid_token: 401,
	member_not_found: 404,
	permission_denied: 403,
	plan_feature_unavailable: 403,
	quota_exceeded: 402,
	rate_limit_exceeded: 429,
	validation_error: 400,
	not_supported: 400,
	internal_error: 500,
};

export interface ValidationItem {
	fields: (string | number)[];
	msg: string;
}

export class ApiError extends Error {
	constructor(
		readonly httpStatus: number,
		message: string,
		readonly errorCode?: ErrorCode,
		readonly errors?: ValidationItem[],
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	static coded(code: ErrorCode, message: string, headers?: Record<string, string>): ApiError {
		return new ApiError(STATUS_BY_CODE[code], message, code, undefined, headers);
	}

	static validation(errors: ValidationItem[], message = 'Validation failed'): ApiError {
		return new ApiError(400, message, 'validation_error', errors);
	}

	/** A single-field validation error whose top-level message is the validator message (e.g. the phone rule). */
	static field(fields: (string | number)[], msg: string): ApiError {
		return new ApiError(400, msg, 'validation_error', [{ fields, msg }]);
	}

	/** Unknown resource: 404 without an error_code, since the spec lists none for "not found". */
	static notFound(what: string): ApiError {
		return new ApiError(404, `${what} not found`);
	}

	/** The spec's documented `404 (entities not found)` of a list: nothing on this page. */
	static entitiesNotFound(): ApiError {
		return new ApiError(404, 'Entities not found');
	}

	/** Another workspace's resource: 403 "Access denied" as the live service does. */
	static accessDenied(): ApiError {
		return ApiError.coded('permission_denied', 'Access denied');
	}

	toBody(): Record<string, unknown> {
		const body: Record<string, unknown> = { status: 'error', message: this.message };
		if (this.errorCode) body.error_code = this.errorCode;
		if (this.errors) body.errors = this.errors;
		return body;
	}
}

export const INVALID_PHONE = 'Invalid phone number format';
export const NO_CONNECTED_ACCOUNT = 'No connected chat-app account';
export const QUOTA_EXCEEDED = 'Message quota exceeded';
