import { render } from 'preact';
import { App } from './app.tsx';
import './styles/tokens.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/components.css';
import './styles/pages.css';
import './styles/fleet.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
