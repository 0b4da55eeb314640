import type { Links } from './alerts.js';

/** Links to the whole prefix, for an alert about many runs (a grouped alert, a silence summary). */
export function prefixLinks(links: Links): { s3Uri: string; consoleUrl: string } {
  const path = links.prefix ? `${links.prefix}/` : '';
  return {
    s3Uri: `s3://${links.bucket}/${path}`,
    consoleUrl: `https://s3.console.aws.amazon.com/s3/buckets/${encodeURIComponent(links.bucket)}?region=${links.region}&prefix=${encodeURIComponent(path)}`,
  };
}
