/** Copying a project (AWX's FIELDS_TO_DISCARD_AT_COPY): a source control project's checkout directory is made anew, and the copy syncs as a new project does. */
import type { CopyRule } from '../../api/copy-route.ts';

export const projectCopy: CopyRule = {
  values(original, values) {
    // A manual project's local_path names its playbook directory, which no other project may use:
    // its copy is refused with that message rather than made without a directory.
    if (original.scm_type !== '') delete values.local_path;
    return values;
  },
};
