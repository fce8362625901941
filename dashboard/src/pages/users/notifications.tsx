/** The notifications sent to a user, or due, newest first (GET /admin/v1/notifications/deliveries?userId=). */
import type { Session } from '../../api.js';
import { useList } from '../../list.js';
import { DeliveryTable, type Delivery } from '../notifications/deliveries.js';

export function NotificationsOfUser({ session, userId }: { session: Session; userId: string }) {
  const list = useList<Delivery>(session, `/admin/v1/notifications/deliveries?limit=20&userId=${encodeURIComponent(userId)}`);
  return <DeliveryTable list={list} empty="No notifications." />;
}
