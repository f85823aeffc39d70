// What starting sweepEvents takes and answers, and what one page of it answers: importing nothing of ours.

/** `handedOverBefore`, `afterId`: what the runs before this one (continued as new) handed over, and where they stopped. */
export type SweepEventsInput = { handedOverBefore?: number; afterId?: string };
export type SweepEventsResult = { handedOver: number };
/** `nextAfterId`: where the next page starts, when this one was full. */
export type SweptPage = { handedOver: number; nextAfterId?: string };
