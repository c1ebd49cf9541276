-- Abort mid-stream: the model stalls after a few deltas, :AgentlsAbort ends the turn, the transcript
-- keeps what streamed and says it was aborted, and the chat is idle again.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local session = T.open()
T.send('tell me a long story')
T.wait(function()
  return T.text(T.transcript()):find('Once upon', 1, true)
end, 'the first deltas')
T.eq('agentls: busy', require('agentls').status(), 'statusline while streaming')
vim.cmd('AgentlsAbort')
T.idle(session)
T.wait(function()
  return T.text(T.transcript()):find('_aborted_', 1, true)
end, 'the aborted mark')
-- Marked at the top and where the answer was cut (its end), after what had streamed.
local text = T.text(T.transcript())
T.ok(text:find('Once upon[^\n]*\n\n_aborted here_\n$'), 'the mark at the end:\n' .. text)
T.eq('agentls: idle', require('agentls').status(), 'statusline after abort')
-- The prompt buffer was emptied by the send and not refilled (an abort is not an error).
T.eq({ '' }, T.lines(T.chat().prompt_buf), 'prompt buffer')
T.finish()
