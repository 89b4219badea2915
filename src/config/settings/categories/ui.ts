import { FieldProblem, boolean, choice, integer, text } from '../../../api/fields.ts';
import { category, setting } from '../types.ts';

const DATA_URL = /^data:image\/(?:png|jpeg|gif);base64,([A-Za-z0-9+/=]+?)$/;

const customLogo = text({
  label: 'Custom Logo',
  helpText:
    'To set up a custom logo, provide a file that you create. For the custom logo to look its best, use a .png file with a transparent background. GIF, PNG and JPEG formats are supported.',
});

const pendoState = choice(
  [
    ['off', 'Off'],
    ['anonymous', 'Anonymous'],
    ['detailed', 'Detailed'],
  ],
  // Read-only under the open license, as AWX makes it.
  { default: 'off', readOnly: true, label: 'User Analytics Tracking State', helpText: 'Enable or Disable User Analytics Tracking.' },
);

/** AWX's UI settings; the API root and /api/v2/config/ answer some of them. */
export const ui = category({
  slug: 'ui',
  name: 'UI',
  description: 'What a user interface shows: the login dialog, the logo and how job output is paged.',
  settings: {
    PENDO_TRACKING_STATE: setting<'off' | 'anonymous' | 'detailed'>(pendoState),
    CUSTOM_LOGIN_INFO: setting<string>(
      text({
        label: 'Custom Login Info',
        helpText:
          'If needed, you can add specific information (such as a legal notice or a disclaimer) to a text box in the login modal using this setting. Any content added must be in plain text or an HTML fragment, as other markup languages are not supported.',
      }),
    ),
    CUSTOM_LOGO: setting<string>(
      {
        ...customLogo,
        parse: (value) => {
          const logo = customLogo.parse(value) as string;
          if (logo === '') return logo;
          const match = DATA_URL.exec(logo);
          if (!match) throw new FieldProblem('Invalid format for custom logo. Must be a data URL with a base64-encoded GIF, PNG or JPEG image.');
          if (match[1].length % 4 !== 0 || /=[^=]/.test(match[1])) throw new FieldProblem('Invalid base64-encoded data in data URL.');
          return logo;
        },
      },
      { placeholder: 'data:image/gif;base64,R0lGODlhAQABAIABAP///wAAACwAAAAAAQABAAACAkQBADs=' },
    ),
    MAX_UI_JOB_EVENTS: setting<number>(
      integer({
        default: 4000,
        min: 100,
        label: 'Max Job Events Retrieved by UI',
        helpText: 'Maximum number of job events for the UI to retrieve within a single request.',
      }),
      { hidden: true },
    ),
    UI_LIVE_UPDATES_ENABLED: setting<boolean>(
      boolean({
        default: true,
        label: 'Enable Live Updates in the UI',
        helpText: 'If disabled, the page will not refresh when events are received. Reloading the page will be required to get the latest details.',
      }),
      { hidden: true },
    ),
  },
});
