// Container image references as registries and container engines read them
// (the distribution project's grammar): [domain[:port]/]path[/path...][:tag][@digest].

const ALPHANUMERIC = '[a-z0-9]+';
// Each repetition needs a separator character, so the expression cannot backtrack exponentially.
const PATH_COMPONENT = `${ALPHANUMERIC}(?:(?:[._]|__|-+)${ALPHANUMERIC})*`;
const DOMAIN_COMPONENT = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^${NAME}(?::${TAG})?(?:@${DIGEST})?$`);

/** Whether `value` is a valid container image reference (quay.io/ansible/awx-ee:24.6.1, localhost:5000/ee@sha256:...). */
export function isImageReference(value: string): boolean {
  return value.length <= 1024 && REFERENCE.test(value);
}
