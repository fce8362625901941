/**
 * Notifications: the settings (notifications/settings.tsx), the templates with a live preview
 * (notifications/templates.tsx), and the tenant's deliveries (notifications/deliveries.tsx).
 */
import type { Session } from '../api.js';
import { NotificationDeliveries } from './notifications/deliveries.js';
import { NotificationSettings } from './notifications/settings.js';
import { Templates } from './notifications/templates.js';

export function NotificationsPage({ session }: { session: Session }) {
  return (
    <section>
      <h1>Notifications</h1>
      <NotificationSettings session={session} />
      <h2 class="section">Templates</h2>
      <Templates session={session} />
      <NotificationDeliveries session={session} />
    </section>
  );
}
