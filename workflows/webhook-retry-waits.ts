// The waits between attempts of one delivery: the first attempt is immediate, then 1 min, 5 min, 30 min, 2 h, 6 h,
// 12 h, 24 h and 24 h: nine attempts over 2 days 20 hours, in the spirit of Stripe's and Standard Webhooks' schedules.
export const retryWaits = ['1 minute', '5 minutes', '30 minutes', '2 hours', '6 hours', '12 hours', '24 hours', '24 hours'] as const;
