-- Schema version 15: a session whose file is gone stays in the index when
-- its committed bytes are kept (SPEC §11: the kept store beside the index),
-- marked gone; its bodies are read from the kept copy.
ALTER TABLE sessions ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
