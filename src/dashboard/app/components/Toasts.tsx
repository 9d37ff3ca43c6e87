// Short confirmations after an action ("Refund requested"), read out by screen readers from one polite live region
// that is always in the page (a region added with its text is often not announced).
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

type Notify = (message: string) => void;
const ToastContext = createContext<Notify>(() => {});

export function useToast(): Notify {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<Array<{ id: number; text: string }>>([]);
  const notify = useCallback<Notify>((text) => {
    const id = Date.now() + Math.random();
    setMessages((list) => [...list.slice(-2), { id, text }]);
    setTimeout(() => setMessages((list) => list.filter((m) => m.id !== id)), 6000);
  }, []);
  return (
    <ToastContext.Provider value={notify}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {messages.map((m) => <p key={m.id} className="toast">{m.text}</p>)}
      </div>
    </ToastContext.Provider>
  );
}
