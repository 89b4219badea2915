import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import '@patternfly/react-core/dist/styles/base.css';
import './app/app.css';
import { queryClient } from './app/query-client';
import { createRouter } from './app/router';
import { followSystemColorScheme } from './app/color-scheme';
import { requestPageData } from './app/early-page-data';
import { applyBranding } from './app/branding';

// Before the router, so the page's data is asked for ahead of its code.
requestPageData(location.pathname);
followSystemColorScheme();
applyBranding();
const router = createRouter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
