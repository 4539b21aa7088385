/**
 * packages/core/src/runtime/events/agentInput.ts: the fields n8n's AI Agent and chat memories read by default
 * (`chatInput`, `sessionId`), from a delivered event, a released burst and the burst a run answers.
 */
import { agentInputOf, burstEvent, parseDelivery, type ChatEvent } from '../src';

const delivered = (data: Record<string, unknown>, eventType = 'message:received:new'): ChatEvent => {
	const parsed = parseDelivery({ event_type: eventType, data });
	if (!('event' in parsed)) throw new Error(parsed.malformed);
	return parsed.event;
};

describe('agentInputOf', () => {
	it("gives a message's text as chatInput and its chat, as a string, as sessionId", () => {
		expect(agentInputOf(delivered({ chat_id: 42, text: 'hi', message_uid: 'm1' }))).toEqual({ chatInput: 'hi', sessionId: '42' });
		expect(agentInputOf(delivered({ chat_id: 'c-7', text: 'hi' }))).toEqual({ chatInput: 'hi', sessionId: 'c-7' });
	});

	it("gives a burst's texts, one a line, as one chatInput", () => {
		const events = ['my order', 'is late'].map((text, index) => delivered({ chat_id: 9, text, message_uid: `m${index}` }));
		expect(agentInputOf(burstEvent(events))).toEqual({ chatInput: 'my order\nis late', sessionId: '9' });
		expect(agentInputOf({ chat_id: 9, text: 'my order\n[attachment: voice.ogg]' })).toEqual({
			chatInput: 'my order\n[attachment: voice.ogg]',
			sessionId: '9',
		});
	});

	it('leaves chatInput out when there is no text, so an agent fails naming the missing prompt', () => {
		expect(agentInputOf(delivered({ id: 5, name: 'New chat' }, 'chat:created'))).toEqual({ sessionId: '5' });
		expect(agentInputOf(delivered({ chat_id: 5, text: '  ' }))).toEqual({ sessionId: '5' });
		expect(agentInputOf({ chat_id: null, text: null })).toEqual({});
	});
});
