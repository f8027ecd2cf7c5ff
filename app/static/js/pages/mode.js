// Entry script of a mode page without a script of its own.
import {bindLessonNavigation} from "../modes/common.js";

bindLessonNavigation();
