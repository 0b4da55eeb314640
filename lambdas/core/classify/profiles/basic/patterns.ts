// Patterns shared by the basic signals.

// A training log prefixes lines with ranks ("[rank3]: ", "10: ", "[1,3]<stderr>:"); a Python exception's last
// line must still be recognised after such a prefix, and nowhere else (a message that merely names an error).
// Ray prefixes its workers' lines ("(RayTrainWorker pid=954, ip=10.0.0.1) "), pdsh and DeepSpeed the host's IP
// or name ("gpu-node-07: "), `kubectl logs --timestamps` an RFC 3339 time, `kubectl logs --prefix` the pod
// ("[pod/trainer-0/pytorch] "), docker compose the service ("trainer-1  | ").
export const LINE_PREFIX = String.raw`^\s*(?:(?:\[rank\d+\]:|\[\d+(?:,\d+)?\](?:<std\w+>)?:|\d+:|\[default\d+\]:|\([\w.:-]{1,64} pid=\d+(?:, ip=[\d.]+)?\)|(?:\d{1,3}\.){3}\d{1,3}:|[A-Za-z][\w.-]{0,63}:(?=\s)|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?Z?:?|\[pod/[^\]\s]{1,200}\]|[\w.-]{1,64}\s{1,20}\|)\s*){0,2}`;
export const SIZE = String.raw`\d+(?:\.\d+)?\s?[KMGTP]?i?B`;
// An Xid in every driver format: "NVRM: Xid (PCI:0000:3b:00): 79, pid=…", "Xid (0000:3b:00): 79", "Xid=69",
// "XID error 79" (DCGM), '"xid": 79' (JSON logs); never "Xid errors: 0" (a healthy counter).
export const XID = String.raw`\bXid\b['"]?(?:\s*\((?<pci>(?:PCI:)?[0-9A-Fa-f:.]+)\))?(?:\s+errors?)?\s*[:=]?\s*(?!0\b)`;
// Xids that report ECC trouble: 48 double-bit error, 63/64 row remapping, 94/95 contained/uncontained ECC.
export const ECC_XIDS = '48|63|64|94|95';
// Xids that usually follow the application's own fault (illegal access, a killed process).
export const APP_XIDS = '13|31|43|45';
// A metric named for a loss, in any logger: loss, 'loss', val_loss, train/loss, critic/vf_loss, loss_cls; a regression's
// mse and an optimiser's objective are losses by another name.
// The name may sit in quotes or brackets ("[Loss] nan", loguru-style tables).
export const LOSS_KEY = String.raw`(?<![\w/.-])['"]?[\w/.-]{0,60}(?:loss|cross[-_]?entropy|xent|nll|elbo|mse|objective)[\w/.-]{0,40}['"\]]?(?:\x1b?\[[\d;]{1,8}m){0,2}`;
export const NON_FINITE = String.raw`(?:\x1b?\[[\d;]{1,8}m\s{0,8}){0,2}['"\[]?(?:(?:tf\.|np\.|jnp\.|torch\.)?(?:tensor\(|(?:Device)?array\(|Variable\())?(?<value>[-+]?(?:nan|inf(?:inity|inite)?))\b`;
