// The routes: the two pages reached signed out (sign-in, set-up), and every other page inside the shell behind a session.
import { Route, Routes } from 'react-router';
import { PAGES } from './routes.js';
import { RequireSession } from './session.js';
import { Shell } from './Shell.js';
import { SignInPage } from './pages/SignIn.js';
import { SetupPage } from './pages/Setup.js';
import { NotFoundPage } from './pages/NotFound.js';

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/setup/:token" element={<SetupPage />} />
      <Route element={<RequireSession><Shell /></RequireSession>}>
        {PAGES.map((page) => <Route key={page.path} path={page.path} element={page.element} />)}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
