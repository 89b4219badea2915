// PLACEHOLDER: replaced by its real page.
export default function Placeholder() {
  return null;
}
