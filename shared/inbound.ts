// The inbound webhook contract both services hold to: the actions a webhook can have and the
// largest body it takes (the gateway refuses larger bodies before they reach the tracker).

export const INBOUND_ACTIONS = ['create_incident', 'create_expense', 'create_work_order', 'create_unit_note', 'log_only'] as const;

export type InboundAction = (typeof INBOUND_ACTIONS)[number];

export const isInboundAction = (v: string): v is InboundAction => (INBOUND_ACTIONS as readonly string[]).includes(v);

export const INBOUND_MAX_BODY_BYTES = 256 * 1024;
