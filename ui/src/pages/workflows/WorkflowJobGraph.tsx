// PLACEHOLDER: replaced by its real page.
import type { ApiObject } from "../../api/types";
export default function WorkflowJobGraph(_props: { job: ApiObject }) {
  return null;
}
