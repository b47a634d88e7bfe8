/** A status line: errors are alerts, other messages polite status updates. */
export function Message({ msg }: { msg: [string, boolean] }) {
  if (!msg[0]) return null;
  return msg[1] ? (
    <p role="alert" class="error">
      {msg[0]}
    </p>
  ) : (
    <p role="status" class="ok">
      {msg[0]}
    </p>
  );
}
