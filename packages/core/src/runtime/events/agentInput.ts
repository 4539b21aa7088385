/**
 * The two fields an AI agent platform reads from a chat turn by default, named as n8n's Chat Trigger puts them
 * out: `chatInput`, what the customer wrote (one message's text, or a burst's texts one per line), and
 * `sessionId`, the conversation's key (the chat's id as a string). n8n's AI Agent takes its prompt from
 * `chatInput` and n8n's chat memories key a conversation by `sessionId` when left at their defaults; Node-RED
 * flows read the same names from the msg. Every surface that shapes an event or a burst into an item or a msg
 * adds them from here, next to the fields it already carries.
 */

/** The agent's fields of a turn; one is left out when the turn has nothing for it (a chat without text). */
export interface AgentInput {
	chatInput?: string;
	sessionId?: string;
}

/**
 * The agent's fields of an event (ChatEvent), a released burst (BurstEvent) or the burst a run answers
 * (BurstTurn): each holds the chat and the text (a burst's already joined). A turn without text (a chat
 * created, an attachment alone) has no `chatInput`, so an agent reading it fails naming the missing prompt
 * rather than answering an empty one.
 */
export function agentInputOf(turn: { chat_id: number | string | null; text: string | null }): AgentInput {
	const fields: AgentInput = {};
	if (typeof turn.text === 'string' && turn.text.trim() !== '') fields.chatInput = turn.text;
	if (turn.chat_id !== null && turn.chat_id !== '') fields.sessionId = String(turn.chat_id);
	return fields;
}
