// The file exists, but outside this plugin's folder: a load error.
import { register as theirs } from '../../../yes-man/hooks/register.ts';

export const register = theirs;
