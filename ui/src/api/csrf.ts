/** The csrftoken cookie the API sets (GET /api/ sets it); writes of a session send it back in X-CSRFToken. */
export function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : '';
}

export const isSafeMethod = (method: string) => ['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
